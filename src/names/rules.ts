/**
 * Validation and application of name operations (reference-names.md §4.4–§4.6, §5.1–§5.4) as
 * pure functions over a {@link NameState}.
 *
 * - `verifyNameTx` is admission (mempool, and the RPC before it funds anything): every rule,
 *   fees and times included, so a transaction the node accepts applies.
 * - `applyNameTx` runs inside a block. It re-checks structure, keys and signatures but not fees or
 *   times (§5.2). An updateRecord that fails there is still included, its fee charged, with no name
 *   change (§5.2 "apply-failure policy"); any other failure throws and the block drops the tx.
 *
 * Deliberate differences from the reference (spec README: do not copy its bugs): unknown
 * instructions are rejected; updateRecord admission checks signature, merge and capacity; the
 * toggle's first-output amount goes to the pool instead of being burned; a top name never pays
 * its own subname price when extended (§8 item 12); capacity increases after expiry are refused
 * with a message instead of an astronomically large fee.
 */
import { primaryAddressFromPublicKey, addressToText } from '../formats/address.js';
import { equalBytes, toHex } from '../formats/bytes.js';
import { formatAmount } from '../formats/amount.js';
import { RN_MIN_CAPACITY_KB, TransactionType } from '../formats/constants.js';
import { verifySignature } from '../formats/rsa.js';
import { dataRecordChecksum, dataRecordsRoot, recordSize, type DataRecord } from './data-record.js';
import { capacityChangeMinimum, expectedFee, extensionCost, registrationCost } from './fees.js';
import { AT_RECORD_KEY, idSections } from './id.js';
import { nameRecordChecksum, type NameRecord } from './name-record.js';
import { BYTES_PER_KB, MAX_SUBNAME_LEVELS, type NameParams } from './params.js';
import {
  decodeNamePayload,
  isSignedPayload,
  NameOp,
  nameOpName,
  type NamePayload,
  type SignedNamePayload,
} from './payloads.js';
import { cloneRecord, type NameState } from './state.js';

/** A broken name rule; the message names the rule and the values involved. */
export class NameRuleError extends Error {
  override name = 'NameRuleError';
  readonly code = 'ERR_NAME_RULE';
}

const fail = (message: string): never => {
  throw new NameRuleError(message);
};

/** The outputs of a type-4 transaction: the first goes to the pool and carries the payload. */
export interface NameTxOutput {
  address: Uint8Array;
  amount: bigint;
  data?: Uint8Array;
}

export interface NameRulesEnv {
  params: NameParams;
  /** `addressNoChecksum` of the name-operation (reward-pool) address. */
  poolAddress: Uint8Array;
  /** RSA PKCS#1 v1.5 SHA-512 verification; defaults to `formats/rsa` `verifySignature`. */
  verifySignature?: (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => boolean;
}

/** At most 3 outputs: pool (with payload), subname fee recipient, one more (§4.1). */
const MAX_OUTPUTS = 3;

/** What an operation changes, computed before anything is written. */
export interface NamePlan {
  payload: NamePayload;
  /** Records to store (the operated name, and a top name whose expiration is raised). */
  writes: NameRecord[];
  /** Added to the reward pool. */
  poolCredit: bigint;
  /** Expiration set by register/extend (feeds highestExpiration, §5.5). */
  expiration: bigint | null;
}

export interface NameApplyOutcome {
  /** False for an updateRecord that failed in the block: fee charged, names unchanged. */
  applied: boolean;
  /** Why an updateRecord was not applied. */
  reason?: string;
  /** Ids of the names written (for the per-block state checksum, §5.6). */
  touched: Uint8Array[];
}

/**
 * The stored name `id` as seen by a transaction entering block `height`: names past expiry +
 * grace are removed at the start of that block (§5.3), so they count as absent.
 */
export function liveName(state: NameState, id: Uint8Array, height: bigint, params: NameParams): NameRecord | undefined {
  const r = state.get(id);
  if (!r) return undefined;
  return r.expirationBlockHeight + BigInt(params.gracePeriodBlocks) >= height ? r : undefined;
}

/**
 * The name a reader finds (getRegName, getRegNameDataRecords, a peer's getNameRecord; §6.3):
 * `id` itself when `absolute`, else the deepest registered name along `id`, stopping below a name
 * that allows no subnames. It reads the state as stored at the tip, as the reference's `getName`
 * and `status` 'Names' do: expiry ran at the start of the tip's block (§5.3), so a name expiring
 * at E is read up to tip E + grace, although a transaction on it would enter the block that
 * removes it (the operations check with {@link liveName} at the next height).
 */
export function findName(state: NameState, id: Uint8Array, absolute: boolean): NameRecord | undefined {
  if (absolute) return state.get(id);
  let found: NameRecord | undefined;
  let prefix = 0;
  for (const section of idSections(id)) {
    prefix += section.length;
    const r = state.get(id.subarray(0, prefix));
    if (!r) break;
    found = r;
    if (!r.allowSubnames) break;
  }
  return found;
}

/** Payload of the first output, decoded, with the output rules of §5.1. */
export function namePayloadOf(outputs: readonly NameTxOutput[], env: NameRulesEnv): NamePayload {
  if (outputs.length === 0 || outputs.length > MAX_OUTPUTS) {
    fail(`a name transaction has 1…${MAX_OUTPUTS} outputs, got ${outputs.length}`);
  }
  const first = outputs[0]!;
  if (!equalBytes(first.address, env.poolAddress)) {
    fail(`the first output of a name transaction must go to the name-operation address ${addressToText(env.poolAddress)}`);
  }
  for (let i = 1; i < outputs.length; i++) {
    if (equalBytes(outputs[i]!.address, env.poolAddress)) fail('only the first output of a name transaction may go to the name-operation address');
  }
  for (const o of outputs) if (o.amount < 0n) fail('output amounts must not be negative');
  if (!first.data || first.data.length === 0) fail('the first output of a name transaction carries no name payload');
  return decodeNamePayload(first.data!);
}

/**
 * The first of `pending` (pool transactions) that operates on name `id`. A block applies one
 * operation per name and sequence, so a second one submitted meanwhile would be dropped.
 */
export function pendingNameTxFor<K extends { tx: { type: number; outputs: readonly NameTxOutput[] } }>(
  pending: readonly K[],
  id: Uint8Array,
  env: NameRulesEnv,
): K | undefined {
  return pending.find((k) => {
    if (k.tx.type !== TransactionType.RegName) return false;
    try {
      return equalBytes(namePayloadOf(k.tx.outputs, env).id, id);
    } catch {
      return false; // admission decoded it already; not a name operation otherwise
    }
  });
}

const describeId = (id: Uint8Array): string => `'id' ${Buffer.from(id).toString('hex')}`;

function requireName(state: NameState, id: Uint8Array, height: bigint, params: NameParams): NameRecord {
  return liveName(state, id, height, params) ?? fail(`Name with ${describeId(id)} does not exist.`);
}

/** The top name of a subname id (2 sections), or null for a top name itself. */
function topOf(state: NameState, id: Uint8Array, height: bigint, params: NameParams): NameRecord | null {
  const sections = idSections(id);
  if (sections.length === 1) return null;
  return liveName(state, sections[0]!, height, params) ?? fail('the top name of this subname is not registered');
}

/**
 * The second output paying a top name's subname price (§4.6): required when the top name's price
 * is above zero; amount ≥ expectedFee(blocks, capacity, price).
 */
function checkSubnameFee(top: NameRecord | null, outputs: readonly NameTxOutput[], blocks: bigint, capacityKb: number, params: NameParams): void {
  if (!top || top.subnamePrice === 0n) return;
  const due = expectedFee(blocks, capacityKb, top.subnamePrice, params.monthBlocks);
  if (due === 0n) return;
  const out = outputs[1];
  if (!out || !top.subnameFeeRecipient || !equalBytes(out.address, top.subnameFeeRecipient)) {
    fail(`the second output must pay the subname fee ${formatAmount(due)} to the top name's fee recipient`);
  }
  if (out!.amount < due) fail(`the subname fee output pays ${formatAmount(out!.amount)}, at least ${formatAmount(due)} is due`);
}

function checkFee(paid: bigint, due: bigint, what: string): void {
  if (paid < due) fail(`the ${what} costs ${formatAmount(due)}; the first output pays ${formatAmount(paid)}`);
}

function checkTimeUnit(blocks: number, what: string, params: NameParams): void {
  if (blocks % params.monthBlocks !== 0) fail(`${what} must be a multiple of ${params.monthBlocks} blocks, got ${blocks}`);
}

/**
 * §5.4: the record list after applying `changes` in order; throws NameRuleError when a change does
 * not fit. Records are found by checksum through a map (slots keep the order; a removed record
 * leaves an empty slot), so an update of n changes over m records costs O(n + m), not O(n × m).
 */
export function mergeDataRecords(current: NameRecord, changes: readonly DataRecord[]): DataRecord[] {
  const slots: (DataRecord | null)[] = current.dataRecords.map((r) => ({ ...r }));
  const slotOf = new Map<string, number>();
  slots.forEach((r, at) => {
    const key = r!.checksum ? toHex(r!.checksum) : null;
    if (key !== null && !slotOf.has(key)) slotOf.set(key, at); // the first holder, as a list search finds
  });
  const indexOf = (checksum: Uint8Array): number => slotOf.get(toHex(checksum)) ?? -1;
  changes.forEach((change, i) => {
    if (change.checksum) {
      const at = indexOf(change.checksum);
      if (at < 0) fail(`record change ${i}: no record of this name has the given checksum`);
      if (change.data === null) {
        slotOf.delete(toHex(change.checksum));
        slots[at] = null;
        return;
      }
      const replacement: DataRecord = { key: change.key, ttl: change.ttl, data: change.data, checksum: null };
      replacement.checksum = dataRecordChecksum(replacement);
      if (indexOf(replacement.checksum) >= 0) fail(`record change ${i}: an identical record already exists`);
      slotOf.delete(toHex(change.checksum));
      slotOf.set(toHex(replacement.checksum), at);
      slots[at] = replacement;
      return;
    }
    if (change.data === null) fail(`record change ${i}: a new record needs a value`);
    if (current.allowSubnames && !equalBytes(change.key, AT_RECORD_KEY)) {
      fail(`record change ${i}: a name that allows subnames accepts only the record key '@'`);
    }
    const added: DataRecord = { key: change.key, ttl: change.ttl, data: change.data, checksum: null };
    added.checksum = dataRecordChecksum(added);
    if (indexOf(added.checksum) >= 0) fail(`record change ${i}: an identical record already exists`);
    slotOf.set(toHex(added.checksum), slots.length);
    slots.push(added);
  });
  return slots.filter((r): r is DataRecord => r !== null);
}

/** Bytes the records use against the capacity. */
export const usedBytes = (records: readonly DataRecord[]): number => records.reduce((s, r) => s + recordSize(r), 0);

/** @throws NameRuleError when `records` use more than `capacityKb` (§5.2). */
export function checkCapacity(records: readonly DataRecord[], capacityKb: number): void {
  const used = usedBytes(records);
  if (used > capacityKb * BYTES_PER_KB) fail(`the records use ${used} bytes; a capacity of ${capacityKb} kB holds ${capacityKb * BYTES_PER_KB}`);
}

/**
 * The record as a signed operation leaves it, before its signature is attached (§4.4): the
 * op-specific change, sequence + 1, the payload's next owner, the recomputed Merkle root. Its
 * `forSignature` checksum is what the owner (or, for recover, the recovery key) signs.
 * @throws NameRuleError when the record changes do not merge
 */
export function proposeSignedChange(current: NameRecord, p: SignedNamePayload): NameRecord {
  const next = cloneRecord(current);
  switch (p.op) {
    case NameOp.UpdateRecord:
      next.dataRecords = mergeDataRecords(current, p.records);
      break;
    case NameOp.ChangeCapacity:
      next.capacity = p.newCapacity;
      break;
    case NameOp.Recover:
      next.recoveryHash = p.newRecoveryHash;
      break;
    case NameOp.ToggleAllowSubnames:
      if (p.allowSubnames && !current.allowSubnames) {
        // Enabling wipes the records and resets the capacity (§4.6).
        next.dataRecords = [];
        next.capacity = RN_MIN_CAPACITY_KB;
      }
      next.allowSubnames = p.allowSubnames;
      next.subnamePrice = p.subnamePrice;
      next.subnameFeeRecipient = p.subnameFeeRecipient;
      break;
  }
  next.sequence = current.sequence + 1n;
  next.nextPkHash = p.nextPkHash;
  next.dataMerkleRoot = dataRecordsRoot(next.dataRecords);
  return next;
}

/** The 64-byte digest a signed operation signs: SHA3-512² of the proposed record `forSignature`. */
export const signingDigest = (current: NameRecord, p: SignedNamePayload): Uint8Array =>
  nameRecordChecksum(proposeSignedChange(current, p), 'forSignature');

/** The signer must be the owner (recover: the recovery address) and the signature must verify. */
function checkSigner(current: NameRecord, p: SignedNamePayload, next: NameRecord, env: NameRulesEnv): void {
  const recovery = p.op === NameOp.Recover;
  const expected = recovery ? current.recoveryHash : current.nextPkHash;
  let signer: Uint8Array;
  try {
    signer = primaryAddressFromPublicKey(p.sigPk);
  } catch (err) {
    return fail(`sigPk is not a usable public key: ${(err as Error).message}`);
  }
  if (!equalBytes(signer, expected)) {
    fail(
      `the ${nameOpName(p.op)} must be signed by the name's ${recovery ? 'recovery address' : 'owner'} ${addressToText(expected)}; ` +
        `sigPk belongs to ${addressToText(signer)}`,
    );
  }
  const verify = env.verifySignature ?? verifySignature;
  if (!verify(p.sigPk, nameRecordChecksum(next, 'forSignature'), p.sig)) {
    // Name what the signature must cover: a caller's sig made over another owner (the RPC's
    // nextPkHash defaults to the node's address) otherwise reads as a bad key.
    const recovering = recovery ? `, recovery address ${addressToText(next.recoveryHash)}` : '';
    fail(`the signature of the ${nameOpName(p.op)} does not verify over the proposed state (sequence ${next.sequence}, owner ${addressToText(next.nextPkHash)}${recovering})`);
  }
}

interface PlanOptions {
  /** Check fees and times (admission); blocks do not re-check them (§5.2). */
  fees: boolean;
  /** Defer updateRecord's merge, capacity, key and signature checks to apply (block validation, §5.2). */
  deferRecordChecks?: boolean;
}

/**
 * Everything an operation would change if it entered block `height`, after checking its rules.
 * @throws NameRuleError naming the broken rule; NameCodecError for a malformed payload
 */
export function planNameTx(state: NameState, env: NameRulesEnv, outputs: readonly NameTxOutput[], height: bigint, opts: PlanOptions): NamePlan {
  const { params } = env;
  const payload = namePayloadOf(outputs, env);
  const paid = outputs[0]!.amount;
  const lastHeight = height - 1n;
  const plan: NamePlan = { payload, writes: [], poolCredit: 0n, expiration: null };

  if (payload.op === NameOp.Register) {
    const sections = idSections(payload.id);
    if (sections.length > MAX_SUBNAME_LEVELS + 1) fail(`a name has at most ${MAX_SUBNAME_LEVELS + 1} labels, got ${sections.length}`);
    if (liveName(state, payload.id, height, params)) fail(`Name with ${describeId(payload.id)} is already registered.`);
    const top = topOf(state, payload.id, height, params);
    if (top && !top.allowSubnames) fail('the top name of this subname does not allow subnames');
    if (payload.capacity < params.minCapacityKb) fail(`capacity must be at least ${params.minCapacityKb} kB, got ${payload.capacity}`);
    const time = payload.registrationTimeInBlocks;
    if (opts.fees) {
      if (time < params.minRegistrationBlocks || time > params.maxRegistrationBlocks) {
        fail(`registrationTime must be within ${params.minRegistrationBlocks}…${params.maxRegistrationBlocks} blocks, got ${time}`);
      }
      checkTimeUnit(time, 'registrationTime', params);
      checkFee(paid, registrationCost(time, payload.capacity, params), 'registration');
      checkSubnameFee(top, outputs, BigInt(time), payload.capacity, params);
    }
    const expiration = height + BigInt(time);
    plan.writes.push({
      id: payload.id,
      registrationBlockHeight: height,
      capacity: payload.capacity,
      nextPkHash: payload.nextPkHash,
      recoveryHash: payload.recoveryHash,
      sequence: 0n,
      allowSubnames: false,
      subnamePrice: 0n,
      subnameFeeRecipient: null,
      dataRecords: [],
      dataMerkleRoot: null,
      signaturePk: null,
      signature: null,
      expirationBlockHeight: expiration,
      updatedBlockHeight: height,
    });
    raiseTop(plan, top, expiration, height);
    plan.poolCredit = paid;
    plan.expiration = expiration;
    return plan;
  }

  const current = requireName(state, payload.id, height, params);

  if (payload.op === NameOp.Extend) {
    const time = payload.extensionTimeInBlocks;
    const top = topOf(state, payload.id, height, params);
    if (opts.fees) {
      if (time < params.minRegistrationBlocks) fail(`extensionTime must be at least ${params.minRegistrationBlocks} blocks, got ${time}`);
      checkTimeUnit(time, 'extensionTime', params);
      const remaining = current.expirationBlockHeight - lastHeight;
      if (remaining + BigInt(time) > BigInt(params.maxRegistrationBlocks)) {
        fail(`the current expiry plus the extension would be ${remaining + BigInt(time)} blocks from now; at most ${params.maxRegistrationBlocks} allowed`);
      }
      checkFee(paid, extensionCost(time, current.capacity, params), 'extension');
      checkSubnameFee(top, outputs, BigInt(time), current.capacity, params);
    }
    const next = cloneRecord(current);
    next.expirationBlockHeight += BigInt(time);
    next.updatedBlockHeight = height;
    plan.writes.push(next);
    raiseTop(plan, top, next.expirationBlockHeight, height);
    plan.poolCredit = paid;
    plan.expiration = next.expirationBlockHeight;
    return plan;
  }

  if (!isSignedPayload(payload)) return fail(`unknown name operation ${(payload as NamePayload).op}`);
  if (payload.sequence !== current.sequence + 1n) {
    fail(`the ${nameOpName(payload.op)} has sequence ${payload.sequence}; the name's next sequence is ${current.sequence + 1n}`);
  }
  if ((payload.op === NameOp.UpdateRecord || payload.op === NameOp.Recover) && paid !== 0n) {
    fail(`the ${nameOpName(payload.op)} must pay 0 to the name-operation address, got ${formatAmount(paid)}`);
  }
  if (payload.op === NameOp.UpdateRecord && opts.deferRecordChecks) {
    plan.writes.push(current);
    return plan;
  }
  if (payload.op === NameOp.ChangeCapacity) {
    if (current.allowSubnames) fail('the capacity of a name that allows subnames cannot be changed');
    if (payload.newCapacity < params.minCapacityKb) fail(`capacity must be at least ${params.minCapacityKb} kB, got ${payload.newCapacity}`);
    if (payload.newCapacity > current.capacity && opts.fees) {
      // The reference's fee months are (E − H) in unsigned 64 bits: 0 at E = H, astronomical once E < H (§5.2 note).
      if (current.expirationBlockHeight < lastHeight) fail('the capacity of an expired name cannot be increased; extend it first');
      checkFee(paid, capacityChangeMinimum(current.expirationBlockHeight, lastHeight, current.capacity, payload.newCapacity, params), 'capacity increase');
      const remaining = current.expirationBlockHeight - lastHeight;
      checkSubnameFee(topOf(state, payload.id, height, params), outputs, remaining, payload.newCapacity - current.capacity, params);
    }
    plan.poolCredit = paid;
  }
  if (payload.op === NameOp.ToggleAllowSubnames) {
    if (current.allowSubnames && !payload.allowSubnames) fail('subnames cannot be disabled once allowed');
    if (payload.allowSubnames && idSections(payload.id).length > MAX_SUBNAME_LEVELS) fail('a subname cannot allow subnames of its own');
    plan.poolCredit = paid;
  }
  const next = proposeSignedChange(current, payload);
  checkCapacity(next.dataRecords, next.capacity);
  checkSigner(current, payload, next, env);
  next.signaturePk = payload.sigPk;
  next.signature = payload.sig;
  next.updatedBlockHeight = height;
  plan.writes.push(next);
  return plan;
}

/** A subname registered or extended past its top name's expiration raises the top's (§4.6). */
function raiseTop(plan: NamePlan, top: NameRecord | null, expiration: bigint, height: bigint): void {
  if (!top || top.expirationBlockHeight >= expiration) return;
  const raised = cloneRecord(top);
  raised.expirationBlockHeight = expiration;
  raised.updatedBlockHeight = height;
  plan.writes.push(raised);
}

/**
 * Admission of a name transaction that would enter block `height`: every rule, fees and times
 * included (§5.1, §5.2, plus the apply checks).
 * @throws NameRuleError / NameCodecError
 */
export function verifyNameTx(state: NameState, env: NameRulesEnv, outputs: readonly NameTxOutput[], height: bigint): NamePayload {
  return planNameTx(state, env, outputs, height, { fees: true }).payload;
}

/** Writes a plan: records, pool credit, highest expiration. */
export function commitPlan(state: NameState, plan: NamePlan): Uint8Array[] {
  for (const r of plan.writes) state.put(r);
  const meta = state.getMeta();
  meta.rewardPool += plan.poolCredit;
  if (plan.expiration !== null && plan.expiration > meta.highestExpiration) meta.highestExpiration = plan.expiration;
  state.setMeta(meta);
  return plan.writes.map((r) => r.id);
}

/**
 * Applies a name transaction in block `height` (§5.2 "apply"). Nothing is written unless it
 * succeeds as a whole.
 * @throws NameRuleError / NameCodecError for any failure except an updateRecord's, which returns
 *   `{ applied: false }` (fee charged, no name change).
 */
export function applyNameTx(state: NameState, env: NameRulesEnv, outputs: readonly NameTxOutput[], height: bigint): NameApplyOutcome {
  let plan: NamePlan;
  try {
    plan = planNameTx(state, env, outputs, height, { fees: false });
  } catch (err) {
    if (err instanceof NameRuleError && isUpdateRecord(outputs)) {
      return { applied: false, reason: err.message, touched: [] };
    }
    throw err;
  }
  return { applied: true, touched: commitPlan(state, plan) };
}

function isUpdateRecord(outputs: readonly NameTxOutput[]): boolean {
  return outputs[0]?.data?.[0] === NameOp.UpdateRecord;
}

/**
 * Completes a signed operation: computes the digest of the state it leaves (with `sigPk` in the
 * payload) and attaches the signature `sign` makes over it.
 */
export function signNamePayload<P extends SignedNamePayload>(
  current: NameRecord,
  unsigned: Omit<P, 'sigPk' | 'sig'>,
  sigPk: Uint8Array,
  sign: (digest: Uint8Array) => Uint8Array,
): P {
  const p = { ...unsigned, sigPk, sig: new Uint8Array(0) } as unknown as P;
  return { ...p, sig: sign(signingDigest(current, p)) };
}
