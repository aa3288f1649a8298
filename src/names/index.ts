/** The pure name-system library (no node needed): ids, record crypto, codecs, fees, rules. */
export { nameId, nameLabels, recordKeyId, idSections, topNameId, AT_RECORD_KEY } from './id.js';
export { recordValueKey, recordValueNonce, encryptRecordValue, decryptRecordValue, RECORD_ENCRYPTION_OVERHEAD } from './record-crypto.js';
export { merkleRoot } from '../formats/merkle.js';
export * from './data-record.js';
export * from './name-record.js';
export * from './payloads.js';
export { NameCodecError } from './reader.js';
export * from './fees.js';
export { CONSENSUS_NAME_PARAMS, nameParamsFor, type NameParams } from './params.js';
export { MapNameState, compareIds, type NameState, type NameMeta } from './state.js';
export {
  NameRuleError,
  verifyNameTx,
  applyNameTx,
  planNameTx,
  proposeSignedChange,
  signingDigest,
  signNamePayload,
  mergeDataRecords,
  liveName,
  type NameRulesEnv,
  type NameTxOutput,
  type NameApplyOutcome,
} from './rules.js';
export { expireNames, payNameReward, nameStateChecksum, EMPTY_NAME_STATE_CHECKSUM } from './block-rules.js';
