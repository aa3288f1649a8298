/**
 * Name system operations (interface.md "Name system"; reference-names.md §6; DESIGN.md decision 4).
 * Every name-changing operation checks the name rules against the node's state first (a clear
 * -32602 instead of a transaction that would lose its fee), then builds one type-4 transaction
 * (first output to the name-operation address carrying the payload), funds and signs it from the
 * node's primary wallet, and submits it. Not copied from the reference: the swapped registerName
 * addresses, recovery signed with the owner key, values cut at commas (reference-names.md §8).
 */
import { PaymentBuilder } from '../../wallet/payments.js';
import { submissionError } from '../errors.js';
import { toStringForm } from '../../chain/tx-json.js';
import type { TxOutput } from '../../codec/types.js';
import { Address, primaryAddressFromPublicKey } from '../../formats/address.js';
import { formatAmount } from '../../formats/amount.js';
import { equalBytes, fromHex, toBase64, toHex } from '../../formats/bytes.js';
import { checksumLockBytes, TransactionType } from '../../formats/constants.js';
import { NAME_POOL_ADDRESS, type NameSystem } from '../../names/chain-extension.js';
import { dataRecordChecksum, dataRecordsRoot, encodeDataRecord, type DataRecord } from '../../names/data-record.js';
import { capacityChangeCost, extensionCost, registrationCost } from '../../names/fees.js';
import { idSections, nameId, RECORD_KEY_ID_LENGTH, recordKeyId } from '../../names/id.js';
import { decodeStoredName, encodeNameRecord, type NameRecord } from '../../names/name-record.js';
import {
  encodeNamePayload,
  NameOp,
  type ChangeCapacityPayload,
  type NamePayload,
  type RecoverPayload,
  type SignedNamePayload,
  type UpdateRecordPayload,
} from '../../names/payloads.js';
import { encryptRecordValue, RECORD_ENCRYPTION_OVERHEAD, recordValueNonce } from '../../names/record-crypto.js';
import { checkCapacity, findName, liveName, pendingNameTxFor, signNamePayload, verifyNameTx } from '../../names/rules.js';
import type { NodeModules } from '../../node/modules.js';

import type { WalletKey } from '../../wallet/wallet.js';
import type { TransactionStringForm } from '../../codec/json.js';
import { invalidParams, methodFor, paramList, RpcCode, RpcError, type ParamDef, type ParamsOf } from '../types.js';
import { addressParam } from './params.js';
import { askNetwork } from './light.js';

/** The modules the name operations use. */
export type NameModules = Pick<NodeModules, 'chain' | 'mempool' | 'wallet' | 'names' | 'network' | 'clock' | 'p2p'>;

const method = methodFor<NameModules>();

const system = (ctx: NameModules): NameSystem => ctx.names;

/** The block a new transaction would enter. */
const nextHeight = (ctx: NameModules): bigint => ctx.chain.height + 1n;

function idOfName(ctx: Pick<NodeModules, 'network'>, name: string): Uint8Array {
  try {
    return nameId(name, checksumLockBytes(ctx.network));
  } catch (err) {
    throw invalidParams(`Invalid name ${JSON.stringify(name)}: ${(err as Error).message}`);
  }
}

const notFound = (id: Uint8Array): RpcError => invalidParams(`Name with 'id' ${toHex(id)} does not exist.`);

function existing(ctx: NameModules, id: Uint8Array): NameRecord {
  const s = system(ctx);
  const found = liveName(s.state, id, nextHeight(ctx), s.env.params);
  if (found) return found;
  refusePending(ctx, id); // a registration still pending says so rather than "does not exist" / "expired"
  const stored = s.state.get(id);
  if (stored) {
    // Still read at the tip (getRegName), but the next block removes it first (§5.3).
    const removal = stored.expirationBlockHeight + BigInt(s.env.params.gracePeriodBlocks) + 1n;
    throw invalidParams(`Name with 'id' ${toHex(id)} expired at block ${stored.expirationBlockHeight} and block ${removal} removes it before any transaction; register it again from then on.`);
  }
  throw notFound(id);
}

/** Per pool: ids of names whose transaction is being admitted (the pool lists it only once stored). */
const admitting = new WeakMap<object, Set<string>>();

/**
 * A block applies one operation per name and sequence: a second one while another is pending
 * would be dropped there, its record change lost, so it is refused here instead.
 */
function refusePending(ctx: NameModules, id: Uint8Array): void {
  const key = toHex(id);
  const wait = 'wait for it to be applied before another operation on this name';
  if (admitting.get(ctx.mempool)?.has(key)) throw invalidParams(`Name with 'id' ${key} has a transaction being submitted; ${wait}`);
  const pending = pendingNameTxFor(ctx.mempool.page(0, ctx.mempool.size), id, system(ctx).env);
  if (pending) throw invalidParams(`Name with 'id' ${key} has a pending transaction ${pending.textId}; ${wait}`);
}

/**
 * An owner or recovery address parameter (Base58 with checksum), or the node's primary address by
 * default. The rules compare it with the primary address of the signing key (§5.2: `new
 * Address(sigPk)`), so an address derived from a key with a nonce can never sign for the name:
 * one of this wallet's derived addresses is refused, naming the primary address to use instead.
 */
function addressOr(ctx: NameModules, text: string | undefined, what: string): Uint8Array {
  if (text === undefined || text === '') return ctx.wallet.primary.primary;
  const address = addressParam(text, `Invalid ${what} address was specified`);
  const derivedFrom = ctx.wallet.keys.find((k) => !equalBytes(k.primary, address.addressNoChecksum) && k.nonceOf(address.addressNoChecksum) !== null);
  if (derivedFrom) {
    throw invalidParams(
      `Invalid ${what}: ${address.base58Address} is an address derived from this node's key ${derivedFrom.primaryText}; a name is signed for by a key's primary address, so no key could sign for it. Use ${derivedFrom.primaryText}`,
    );
  }
  return address.addressNoChecksum;
}

/** Funds, signs and submits a type-4 transaction from the primary wallet. */
async function submitNameTx(ctx: NameModules, payload: NamePayload, amount: bigint, extra: TxOutput[] = []): Promise<TransactionStringForm> {
  const s = system(ctx);
  const outputs: TxOutput[] = [{ address: NAME_POOL_ADDRESS, amount, data: encodeNamePayload(payload) }, ...extra];
  verifyNameTx(s.state, s.env, outputs, nextHeight(ctx)); // rule errors are -32602 (rpc/errors.ts)
  refusePending(ctx, payload.id);
  const builder = new PaymentBuilder(ctx.chain, ctx.mempool, ctx.network, ctx.clock);
  const k = builder.buildSigned({ key: ctx.wallet.primary, outputs, type: TransactionType.RegName });
  // Reserved from the check until stored: a concurrent call on the same name is refused too.
  const key = toHex(payload.id);
  const ids = admitting.get(ctx.mempool) ?? new Set<string>();
  admitting.set(ctx.mempool, ids);
  ids.add(key);
  try {
    const error = await ctx.mempool.submit(k);
    if (error) throw submissionError(error, 'name transaction');
  } finally {
    ids.delete(key);
  }
  return toStringForm(k);
}

/** The node's key whose primary address is `address`, if it holds one. */
const localKey = (ctx: NameModules, address: Uint8Array): WalletKey | undefined =>
  ctx.wallet.keys.find((k) => Buffer.from(k.primary).equals(Buffer.from(address)));

/** `sigPk`: a hex public key, or an address whose public key the wallet state knows. */
function publicKeyParam(ctx: NameModules, text: string): Uint8Array {
  if (/^[0-9a-fA-F]+$/.test(text) && text.length > 96) {
    const key = fromHex(text, 'sigPk');
    try {
      primaryAddressFromPublicKey(key);
      return key;
    } catch {
      /* not a key: try it as an address */
    }
  }
  const address = addressParam(text, 'Invalid sigPk: expected a hex public key or an address whose public key is known');
  const known = ctx.chain.wallet(address.addressNoChecksum).publicKey;
  if (!known) throw invalidParams(`Invalid sigPk: the public key of ${address.base58Address} is not known to the chain; pass the public key in hex`);
  return known;
}

/**
 * Signs a signed operation: with `sig`/`sigPk` from the caller, or with the node's key of the
 * required signer (the owner; for recover, the recovery address).
 */
function signed<P extends SignedNamePayload>(ctx: NameModules, current: NameRecord, unsigned: Omit<P, 'sigPk' | 'sig'>, p: { sig?: string; sigPk?: string }): P {
  const recovery = unsigned.op === NameOp.Recover;
  if (p.sig !== undefined && p.sig !== '') {
    if (p.sigPk === undefined || p.sigPk === '') throw invalidParams("Missing parameter 'sigPk'");
    const sig = Buffer.from(p.sig, 'base64');
    if (sig.length === 0) throw invalidParams('Invalid sig: expected a Base64 signature');
    return { ...unsigned, sigPk: publicKeyParam(ctx, p.sigPk), sig: new Uint8Array(sig) } as unknown as P;
  }
  const signerAddress = recovery ? current.recoveryHash : current.nextPkHash;
  const key = localKey(ctx, signerAddress);
  if (!key) {
    throw invalidParams(
      `This node's wallet does not hold the ${recovery ? 'recovery' : 'owner'} key ${new Address(signerAddress).base58Address}; pass sig and sigPk`,
    );
  }
  return signNamePayload<P>(current, unsigned, key.publicKey, (d) => key.sign(d));
}

const nameParam = { name: 'name', kind: 'string', required: true, description: 'Plain-text name' } as const satisfies ParamDef;
const signedParams = (signerWord: string) => paramList([
  { name: 'nextPkHash', kind: 'string', description: "New owner address; default the node's primary wallet address" },
  { name: 'sigPk', kind: 'string', description: `Public key (hex, or an address whose key is known) of the ${signerWord}; required with sig` },
  { name: 'sig', kind: 'string', description: `Base64 signature by the ${signerWord}; if omitted the node signs with its own key` },
]);
const lookupParams = paramList([
  { name: 'name', kind: 'string', description: "Plain-text name; required if 'id' is absent" },
  { name: 'id', kind: 'string', description: "Hex name id; required if 'name' is absent" },
  { name: 'asBytes', kind: 'boolean', description: 'Raw serialized form, hex' },
  { name: 'useAbsoluteId', kind: 'boolean', default: true, description: 'false: the deepest registered name along the id' },
]);

/** The name id of a lookup's parameters (`id` hex, else `name`). */
function lookupId(ctx: Pick<NodeModules, 'network'>, p: ParamsOf<typeof lookupParams>): Uint8Array {
  if (p.id !== undefined && p.id !== '') {
    try {
      const id = fromHex(p.id, 'id');
      idSections(id);
      return id;
    } catch (err) {
      throw invalidParams(`Invalid id: ${(err as Error).message}`);
    }
  }
  if (p.name !== undefined && p.name !== '') return idOfName(ctx, p.name);
  throw invalidParams("Parameter 'id' or 'name' is missing");
}

function lookup(ctx: NameModules, p: ParamsOf<typeof lookupParams>): NameRecord {
  const id = lookupId(ctx, p);
  return findName(system(ctx).state, id, p.useAbsoluteId !== false) ?? (() => { throw notFound(id); })();
}

/** A light node asks a master (getNameRecord, reference-network §7.3). */
async function lightLookup(ctx: NameModules, p: ParamsOf<typeof lookupParams>): Promise<NameRecord> {
  const id = lookupId(ctx, p);
  const answer = await askNetwork(() => ctx.p2p!.queries.nameRecord(id, p.useAbsoluteId !== false));
  if (!answer.record) throw notFound(id);
  return nameFromPeerAnswer(answer.record);
}

/**
 * A master's `nameRecord` answer as a light node takes it: the name with the data records its
 * header commits to. What does not decode, or whose records miss or break the header's Merkle
 * root, is the network's fault, answered -32005 (never the caller's -32602).
 */
export function nameFromPeerAnswer(bytes: Uint8Array): NameRecord {
  let record: NameRecord;
  try {
    record = decodeStoredName(bytes);
  } catch (err) {
    throw new RpcError(RpcCode.ServerBusy, `The network answered a name record that does not decode (${(err as Error).message}); try again`);
  }
  if (record.dataRecords.length === 0 && record.dataMerkleRoot !== null) {
    throw new RpcError(RpcCode.ServerBusy, "The name's records are too large to reach a light node in one answer; call this on a master");
  }
  // The records must be those the name's header commits to (§3.2 field 11), checksums recomputed.
  record.dataRecords = record.dataRecords.map((d) => ({ ...d, checksum: dataRecordChecksum(d) }));
  const root = dataRecordsRoot(record.dataRecords);
  const committed = record.dataMerkleRoot;
  if (!(root === null ? committed === null : committed !== null && equalBytes(root, committed))) {
    throw new RpcError(RpcCode.ServerBusy, "The network answered records that do not match the name's Merkle root; try again");
  }
  return record;
}

/** getRegName's answer: the record's JSON, or the hex of its full serialization. */
function nameAnswer(r: NameRecord, asBytes: boolean) {
  if (asBytes) return toHex(encodeNameRecord(r, 'full'));
  const text = (a: Uint8Array | null) => (a ? new Address(a).base58Address : null);
  return {
    id: toHex(r.id),
    version: 1,
    registrationBlockHeight: r.registrationBlockHeight.toString(),
    capacity: r.capacity,
    nextPkHash: text(r.nextPkHash),
    recoveryHash: text(r.recoveryHash),
    sequence: r.sequence.toString(),
    allowSubnames: r.allowSubnames,
    subnamePrice: formatAmount(r.subnamePrice),
    subnameFeeRecipient: text(r.subnameFeeRecipient),
    dataRecords: r.dataRecords.map(recordJson),
    dataMerkleRoot: r.dataMerkleRoot ? toHex(r.dataMerkleRoot) : null,
    signaturePk: r.signaturePk ? toHex(r.signaturePk) : null,
    signature: r.signature ? toBase64(r.signature) : null,
    expirationBlockHeight: r.expirationBlockHeight.toString(),
    updatedBlockHeight: r.updatedBlockHeight.toString(),
  };
}


/** getRegNameDataRecords' answer. */
const dataRecordsAnswer = (r: NameRecord, asBytes: boolean) => (asBytes ? r.dataRecords.map((d) => toHex(encodeDataRecord(d))) : r.dataRecords.map(recordJson));

const recordJson = (r: DataRecord) => ({
  key: toBase64(r.key),
  type: r.ttl,
  value: r.data ? toBase64(r.data) : null,
  checksum: r.checksum ? toHex(r.checksum) : null,
});

/** One `key,type,value` entry of `records[]`; the value is everything after the second comma. */
function parseRecordEntry(entry: string, i: number): { key: string; type: number; value: string | null } {
  const a = entry.indexOf(',');
  const b = a < 0 ? -1 : entry.indexOf(',', a + 1);
  if (a <= 0 || b < 0) throw invalidParams(`Invalid records[] entry ${i}: expected key,type,value`);
  const typeText = entry.slice(a + 1, b).trim();
  const type = Number(typeText);
  if (!/^-?\d+$/.test(typeText) || type < -0x8000_0000 || type > 0x7fff_ffff) {
    throw invalidParams(`Invalid records[] entry ${i}: type must be a 32-bit integer, got ${JSON.stringify(typeText)}`);
  }
  const value = entry.slice(b + 1);
  return { key: entry.slice(0, a), type, value: value === 'null' ? null : value };
}

export const nameMethods = [
  method({
    name: 'registerName',
    group: 'Name system',
    maturity: 'Proposed',
    summary: 'Registers a name for a number of blocks with a storage capacity',
    params: [
      nameParam,
      { name: 'registrationTime', kind: 'integer', required: true, min: 0, max: 0xffff_ffff, description: 'Duration in blocks; multiple of 86400' },
      { name: 'capacity', kind: 'integer', required: true, min: 0, max: 0xffff_ffff, description: 'Storage in kB' },
      { name: 'recoveryHash', kind: 'string', description: "Address that may recover the name; default the node's primary address" },
      { name: 'pkHash', kind: 'string', description: "Owner address; default the node's primary address" },
    ],
    result: { description: 'Transaction (string form), type 4' },
    handler: (p, ctx) => {
      const payload: NamePayload = {
        op: NameOp.Register,
        id: idOfName(ctx, p.name),
        registrationTimeInBlocks: p.registrationTime,
        capacity: p.capacity,
        recoveryHash: addressOr(ctx, p.recoveryHash, 'recoveryHash'),
        nextPkHash: addressOr(ctx, p.pkHash, 'pkHash'),
      };
      return submitNameTx(ctx, payload, registrationCost(payload.registrationTimeInBlocks, payload.capacity, system(ctx).env.params));
    },
  }),
  method({
    name: 'extendName',
    group: 'Name system',
    summary: 'Extends the registration of a name',
    params: [nameParam, { name: 'extensionTime', kind: 'integer', required: true, min: 0, max: 0xffff_ffff, description: 'Blocks to add; multiple of 86400' }],
    result: { description: 'Transaction (string form), type 4' },
    handler: (p, ctx) => {
      const current = existing(ctx, idOfName(ctx, p.name));
      const time = p.extensionTime;
      return submitNameTx(ctx, { op: NameOp.Extend, id: current.id, extensionTimeInBlocks: time }, extensionCost(time, current.capacity, system(ctx).env.params));
    },
  }),
  method({
    name: 'updateNameCapacity',
    group: 'Name system',
    postOnly: true,
    summary: 'Changes the capacity of a name (optionally transferring it)',
    params: [nameParam, { name: 'newCapacity', kind: 'integer', required: true, min: 0, max: 0xffff_ffff, description: 'New capacity in kB' }, ...signedParams('current owner')],
    result: { description: 'Transaction (string form), type 4' },
    handler: (p, ctx) => {
      const current = existing(ctx, idOfName(ctx, p.name));
      const newCapacity = p.newCapacity;
      const payload = signed<ChangeCapacityPayload>(ctx, current, { op: NameOp.ChangeCapacity, id: current.id, newCapacity, sequence: current.sequence + 1n, nextPkHash: addressOr(ctx, p.nextPkHash, 'nextPkHash') }, p);
      return submitNameTx(ctx, payload, capacityChangeCost(current.expirationBlockHeight, ctx.chain.height, newCapacity, system(ctx).env.params));
    },
  }),
  method({
    name: 'updateNameRecord',
    group: 'Name system',
    maturity: 'Proposed',
    postOnly: true,
    summary: 'Adds, replaces (same key) or removes (value null) data records of a name',
    params: [
      nameParam,
      { name: 'records[]', kind: 'string[]', required: true, description: 'key,type,value entries; value null removes the record', missingMessage: "Missing parameter 'records[]'" },
      ...signedParams('current owner'),
    ],
    result: { description: 'Transaction (string form), type 4, amount 0' },
    handler: (p, ctx) => {
      const name = p.name;
      const current = existing(ctx, idOfName(ctx, name));
      const lock = checksumLockBytes(ctx.network);
      const entries = p['records[]'];
      if (entries.length === 0) throw invalidParams("Missing parameter 'records[]'");
      const parsed = entries.map(parseRecordEntry);
      // Each value becomes one record (keys are distinct) at least as large as the records below
      // (a 64-byte key id, the value encrypted): one that cannot fit is refused before every
      // entry is hashed and encrypted (a 1 MiB request of small entries took seconds of that).
      checkCapacity(
        parsed.flatMap((e) => (e.value === null ? [] : [{ key: new Uint8Array(RECORD_KEY_ID_LENGTH), ttl: e.type, data: new Uint8Array(Buffer.byteLength(e.value) + RECORD_ENCRYPTION_OVERHEAD), checksum: null }])),
        current.capacity,
      );
      const seen = new Set<string>();
      // The stored record each key replaces (the first holding it), found once per entry, not by a list search.
      const storedByKey = new Map<string, DataRecord>();
      for (const r of current.dataRecords) if (!storedByKey.has(toHex(r.key))) storedByKey.set(toHex(r.key), r);
      const records: DataRecord[] = parsed.map((e, i) => {
        let key: Uint8Array;
        try {
          key = recordKeyId(current.id, e.key, lock);
        } catch (err) {
          throw invalidParams(`Invalid records[] entry ${i}: ${(err as Error).message}`);
        }
        // Each entry is matched against the stored records only: a repeated key would be added twice.
        if (seen.has(toHex(key))) throw invalidParams(`Invalid records[] entry ${i}: record key ${JSON.stringify(e.key)} appears twice in one update`);
        seen.add(toHex(key));
        const old = storedByKey.get(toHex(key));
        if (e.value === null) {
          if (!old) throw invalidParams(`Invalid records[] entry ${i}: the name has no record with key ${JSON.stringify(e.key)}`);
          return { key, ttl: e.type, data: null, checksum: old.checksum };
        }
        // A deterministic nonce: a caller signing with `sig` computes the same ciphertexts (README "Names").
        const nonce = recordValueNonce(name, e.key, e.value, current.sequence + 1n);
        return { key, ttl: e.type, data: encryptRecordValue(name, e.key, e.value, nonce), checksum: old?.checksum ?? null };
      });
      const payload = signed<UpdateRecordPayload>(ctx, current, { op: NameOp.UpdateRecord, id: current.id, records, sequence: current.sequence + 1n, nextPkHash: addressOr(ctx, p.nextPkHash, 'nextPkHash') }, p);
      return submitNameTx(ctx, payload, 0n);
    },
  }),
  method({
    name: 'recoverName',
    group: 'Name system',
    postOnly: true,
    summary: 'Replaces owner and recovery address, signed by the recovery address',
    params: [
      nameParam,
      { name: 'nextPkHash', kind: 'string', description: "New owner; default the node's primary wallet address" },
      { name: 'nextRecoveryHash', kind: 'string', description: "New recovery address; default the node's primary wallet address" },
      ...signedParams('current recovery address').slice(1),
    ],
    result: { description: 'Transaction (string form), type 4, amount 0' },
    handler: (p, ctx) => {
      const current = existing(ctx, idOfName(ctx, p.name));
      const payload = signed<RecoverPayload>(ctx, current, {
        op: NameOp.Recover,
        id: current.id,
        newRecoveryHash: addressOr(ctx, p.nextRecoveryHash, 'nextRecoveryHash'),
        sequence: current.sequence + 1n,
        nextPkHash: addressOr(ctx, p.nextPkHash, 'nextPkHash'),
      }, p);
      return submitNameTx(ctx, payload, 0n);
    },
  }),
  method({
    name: 'getRegNameDataRecords',
    group: 'Name system',
    summary: 'The data records of a name (values stay encrypted)',
    params: lookupParams,
    result: { description: 'Array of {key, type, value} (Base64), or hex strings with asBytes' },
    handler: (p, ctx) => dataRecordsAnswer(lookup(ctx, p), p.asBytes),
    light: async (p, ctx) => dataRecordsAnswer(await lightLookup(ctx, p), p.asBytes),
  }),
  method({
    name: 'getRegName',
    group: 'Name system',
    summary: 'The record of a name',
    params: lookupParams,
    result: { description: 'Name record object, or hex of its full serialization with asBytes' },
    handler: (p, ctx) => nameAnswer(lookup(ctx, p), p.asBytes),
    light: async (p, ctx) => nameAnswer(await lightLookup(ctx, p), p.asBytes),
  }),
];
