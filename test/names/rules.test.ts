// The behavioural cases of reference-names.md §7.3 against the pure rules over a Map-backed state
// (fees at the enforced 500 coins per kB-month, §8 item 4).
import { verify as rsaVerify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { primaryAddressFromPublicKey, addressFromText } from '../../src/formats/address.js';
import { NAME_REWARD_POOL_ADDRESS } from '../../src/formats/constants.js';
import { generateWalletKey, signBytes, type WalletKey } from '../../src/formats/rsa.js';
import { expireNames, nameStateChecksum, payNameReward, EMPTY_NAME_STATE_CHECKSUM } from '../../src/names/block-rules.js';
import { dataRecordChecksum, type DataRecord } from '../../src/names/data-record.js';
import { registrationCost } from '../../src/names/fees.js';
import { AT_RECORD_KEY, nameId, recordKeyId } from '../../src/names/id.js';
import { nameRecordChecksum } from '../../src/names/name-record.js';
import { CONSENSUS_NAME_PARAMS as P } from '../../src/names/params.js';
import { encodeNamePayload, NameOp, type NamePayload, type SignedNamePayload } from '../../src/names/payloads.js';
import { applyNameTx, NameRuleError, signNamePayload, verifyNameTx, type NameRulesEnv, type NameTxOutput } from '../../src/names/rules.js';
import { MapNameState } from '../../src/names/state.js';

const LOCK = 'IxiTest';
const COIN = 100_000_000n;
const pool = addressFromText(NAME_REWARD_POOL_ADDRESS);
const env: NameRulesEnv = { params: P, poolAddress: pool };
const SIX = P.minRegistrationBlocks;
const FEE_6M_10KB = registrationCost(SIX, 10, P);

interface W {
  key: WalletKey;
  address: Uint8Array;
}
let w1: W, w2: W, w3: W, w4: W;

const outputs = (p: NamePayload, amount: bigint, extra: NameTxOutput[] = []): NameTxOutput[] => [
  { address: pool, amount, data: encodeNamePayload(p) },
  ...extra,
];
const sign = (w: W) => (d: Uint8Array) => signBytes(w.key.privateKeyObject, d);

beforeAll(async () => {
  const make = async (): Promise<W> => {
    const key = await generateWalletKey({ bits: 1024 });
    return { key, address: primaryAddressFromPublicKey(key.publicKey) };
  };
  [w1, w2, w3, w4] = await Promise.all([make(), make(), make(), make()]);
});

const id = nameId('test', LOCK);
const register = (name = 'test', time = SIX, capacity = 10): NamePayload => ({
  op: NameOp.Register,
  id: nameId(name, LOCK),
  registrationTimeInBlocks: time,
  capacity,
  recoveryHash: w1.address,
  nextPkHash: w1.address,
});

function registered(height = 1n): MapNameState {
  const state = new MapNameState();
  expect(applyNameTx(state, env, outputs(register(), FEE_6M_10KB), height).applied).toBe(true);
  return state;
}

const record = (key: string, value: string, ttl = 1, checksum: Uint8Array | null = null): DataRecord => ({
  key: recordKeyId(id, key, LOCK),
  ttl,
  data: new TextEncoder().encode(value),
  checksum,
});

/** Signs like an owner would; a change that cannot merge has no state to sign, so it gets a dummy signature. */
function signed<T extends SignedNamePayload>(state: MapNameState, unsigned: Omit<T, 'sigPk' | 'sig'>, signer: W): T {
  try {
    return signNamePayload<T>(state.get(unsigned.id)!, unsigned, signer.key.publicKey, sign(signer));
  } catch (err) {
    if (!(err instanceof NameRuleError)) throw err;
    return { ...unsigned, sigPk: signer.key.publicKey, sig: Uint8Array.of(0) } as unknown as T;
  }
}

describe('register and extend (§7.3)', () => {
  it('registers: expiration, updated, pool; the same name again is refused', () => {
    const state = new MapNameState();
    verifyNameTx(state, env, outputs(register(), FEE_6M_10KB), 1n);
    applyNameTx(state, env, outputs(register(), FEE_6M_10KB), 1n);
    const r = state.get(id)!;
    expect(r.expirationBlockHeight).toBe(518_401n);
    expect(r.updatedBlockHeight).toBe(1n);
    expect(r.sequence).toBe(0n);
    expect(state.getMeta()).toEqual({ rewardPool: FEE_6M_10KB, highestExpiration: 518_401n });
    expect(() => verifyNameTx(state, env, outputs(register(), FEE_6M_10KB), 2n)).toThrow(/already registered/);
    expect(() => applyNameTx(state, env, outputs(register(), FEE_6M_10KB), 2n)).toThrow(NameRuleError);
  });
  it('refuses half the fee, half the time, more than the maximum, a small capacity, a partial month', () => {
    const state = new MapNameState();
    expect(() => verifyNameTx(state, env, outputs(register(), FEE_6M_10KB / 2n), 1n)).toThrow(/costs 30000.00000000/);
    expect(() => verifyNameTx(state, env, outputs(register('test', SIX / 2), FEE_6M_10KB), 1n)).toThrow(/registrationTime must be within/);
    expect(() => verifyNameTx(state, env, outputs(register('test', P.maxRegistrationBlocks + 1), 10n ** 15n), 1n)).toThrow(/within/);
    expect(() => verifyNameTx(state, env, outputs(register('test', SIX, 9), FEE_6M_10KB), 1n)).toThrow(/at least 10 kB/);
    expect(() => verifyNameTx(state, env, outputs(register('test', SIX + 1), FEE_6M_10KB), 1n)).toThrow(/multiple of 86400/);
    expect(state.count()).toBe(0);
  });
  it('refuses outputs that do not go to the pool first, or pool outputs later', () => {
    const state = new MapNameState();
    const o = outputs(register(), FEE_6M_10KB);
    expect(() => verifyNameTx(state, env, [{ ...o[0]!, address: w1.address }], 1n)).toThrow(/name-operation address/);
    expect(() => verifyNameTx(state, env, [...o, { address: pool, amount: 1n }], 1n)).toThrow(/only the first output/);
  });
  it('extends by 6 months (pool doubles); half fee refused at admission but applies; unknown name refused', () => {
    const state = registered();
    const ext: NamePayload = { op: NameOp.Extend, id, extensionTimeInBlocks: SIX };
    verifyNameTx(state, env, outputs(ext, FEE_6M_10KB), 2n);
    expect(() => verifyNameTx(state, env, outputs(ext, FEE_6M_10KB / 2n), 2n)).toThrow(/extension costs/);
    applyNameTx(state, env, outputs(ext, FEE_6M_10KB), 2n);
    expect(state.get(id)!.expirationBlockHeight).toBe(1_036_801n);
    expect(state.getMeta().rewardPool).toBe(2n * FEE_6M_10KB);
    const unknown: NamePayload = { op: NameOp.Extend, id: nameId('nope', LOCK), extensionTimeInBlocks: SIX };
    expect(() => verifyNameTx(state, env, outputs(unknown, FEE_6M_10KB), 2n)).toThrow(/does not exist/);
    // Beyond 2,102,400 blocks from now.
    const long: NamePayload = { op: NameOp.Extend, id, extensionTimeInBlocks: 13 * P.monthBlocks };
    expect(() => verifyNameTx(state, env, outputs(long, 10n ** 15n), 3n)).toThrow(/at most 2102400/);
  });
});

describe('updateRecord (§7.3, §5.4)', () => {
  it('adds a record, transfers ownership; the signed digest equals the stored forSignature checksum', () => {
    const state = registered();
    const p = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1')], sequence: 1n, nextPkHash: w3.address }, w1);
    verifyNameTx(state, env, outputs(p, 0n), 2n);
    expect(applyNameTx(state, env, outputs(p, 0n), 2n).applied).toBe(true);
    const r = state.get(id)!;
    expect(r.dataRecords).toHaveLength(1);
    expect(r.nextPkHash).toEqual(w3.address);
    expect(r.sequence).toBe(1n);
    expect(r.signaturePk).toEqual(w1.key.publicKey);
    // The stored state's forSignature checksum is the digest that was signed.
    const digest = nameRecordChecksum(r);
    expect(rsaVerify('sha512', digest, w1.key.privateKeyObject, Buffer.from(r.signature!))).toBe(true);
  });
  it('refuses a wrong sequence, a non-zero amount, a duplicate, a re-add; applies fail without change', () => {
    const state = registered();
    const bad = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1')], sequence: 100n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(bad, 0n), 2n)).toThrow(/sequence 100; the name's next sequence is 1/);
    const twice = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1'), record('abc', 'v1')], sequence: 1n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(twice, 0n), 2n)).toThrow(/identical record/);
    const before = state.get(id);
    expect(applyNameTx(state, env, outputs(twice, 0n), 2n)).toMatchObject({ applied: false });
    expect(state.get(id)).toEqual(before);
    const once = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1')], sequence: 1n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(once, 1n), 2n)).toThrow(/must pay 0/);
    applyNameTx(state, env, outputs(once, 0n), 2n);
    const again = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1')], sequence: 2n, nextPkHash: w1.address }, w1);
    expect(applyNameTx(state, env, outputs(again, 0n), 3n)).toMatchObject({ applied: false, reason: expect.stringMatching(/identical/) });
  });
  it('replaces and deletes by checksum; refuses an unknown checksum', () => {
    const state = registered();
    const add = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v1'), record('def', 'v2')], sequence: 1n, nextPkHash: w1.address }, w1);
    expect(applyNameTx(state, env, outputs(add, 0n), 2n)).toMatchObject({ applied: true });
    const [abc] = state.get(id)!.dataRecords;
    const replace = signed(state, { op: NameOp.UpdateRecord, id, records: [record('ghi', 'v3', 5, abc!.checksum)], sequence: 2n, nextPkHash: w1.address }, w1);
    applyNameTx(state, env, outputs(replace, 0n), 3n);
    let r = state.get(id)!;
    expect(r.dataRecords).toHaveLength(2);
    expect(r.dataRecords[0]!.key).toEqual(recordKeyId(id, 'ghi', LOCK));
    const del = signed(state, { op: NameOp.UpdateRecord, id, records: [{ ...record('x', ''), data: null, checksum: r.dataRecords[1]!.checksum }], sequence: 3n, nextPkHash: w1.address }, w1);
    applyNameTx(state, env, outputs(del, 0n), 4n);
    r = state.get(id)!;
    expect(r.dataRecords).toHaveLength(1);
    expect(r.dataMerkleRoot).toEqual(dataRecordChecksum(r.dataRecords[0]!));
    const unknown = signed(state, { op: NameOp.UpdateRecord, id, records: [{ ...record('x', ''), data: null, checksum: new Uint8Array(64) }], sequence: 4n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(unknown, 0n), 5n)).toThrow(/no record of this name has the given checksum/);
  });
  it('refuses records beyond the capacity, a non-owner key and a bad signature', () => {
    const state = registered();
    const big = signed(state, { op: NameOp.UpdateRecord, id, records: [{ ...record('big', ''), data: new Uint8Array(20_000) }], sequence: 1n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(big, 0n), 2n)).toThrow(/holds 10240/);
    expect(applyNameTx(state, env, outputs(big, 0n), 2n).applied).toBe(false);
    const stranger = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v')], sequence: 1n, nextPkHash: w2.address }, w2);
    expect(() => verifyNameTx(state, env, outputs(stranger, 0n), 2n)).toThrow(/must be signed by the name's owner/);
    const forged = { ...signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v')], sequence: 1n, nextPkHash: w1.address }, w1) };
    forged.sig = forged.sig.slice();
    forged.sig[3]! ^= 1;
    expect(() => verifyNameTx(state, env, outputs(forged, 0n), 2n)).toThrow(/does not verify/);
    expect(state.get(id)!.sequence).toBe(0n);
  });
});

describe('changeCapacity, recover, subnames (§7.3)', () => {
  it('increases capacity with the fee of remaining months × increase; decreases; refuses records beyond it', () => {
    const state = registered();
    const inc = signed(state, { op: NameOp.ChangeCapacity, id, newCapacity: 20, sequence: 1n, nextPkHash: w1.address }, w1);
    // 518,401 − 233 blocks left at block 234 → 5 whole months × 10 kB × 500.
    const due = 5n * 10n * 500n * COIN;
    expect(() => verifyNameTx(state, env, outputs(inc, due - 1n), 234n)).toThrow(/capacity increase costs 25000/);
    verifyNameTx(state, env, outputs(inc, due), 234n);
    applyNameTx(state, env, outputs(inc, due), 234n);
    expect(state.get(id)).toMatchObject({ capacity: 20, updatedBlockHeight: 234n });
    expect(state.getMeta().rewardPool).toBe(FEE_6M_10KB + due);
    const wrongKey = signed(state, { op: NameOp.ChangeCapacity, id, newCapacity: 10, sequence: 2n, nextPkHash: w1.address }, w2);
    expect(() => verifyNameTx(state, env, outputs(wrongKey, 0n), 235n)).toThrow(/owner/);
    const add = signed(state, { op: NameOp.UpdateRecord, id, records: [{ ...record('big', ''), data: new Uint8Array(15_000) }], sequence: 2n, nextPkHash: w1.address }, w1);
    applyNameTx(state, env, outputs(add, 0n), 235n);
    const dec = signed(state, { op: NameOp.ChangeCapacity, id, newCapacity: 10, sequence: 3n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(dec, 0n), 236n)).toThrow(/records use/);
    expect(() => applyNameTx(state, env, outputs(dec, 0n), 236n)).toThrow(/records use/);
  });
  it('admits a capacity increase for free in the block right after the expiration height (E − H = 0, §4.5), not once E < H (§5.2 note)', () => {
    const state = registered();
    const E = state.get(id)!.expirationBlockHeight;
    const inc = signed(state, { op: NameOp.ChangeCapacity, id, newCapacity: 20, sequence: 1n, nextPkHash: w1.address }, w1);
    // Entering block E + 1 the node's last block is E: no whole month left, the minimum is 0.
    verifyNameTx(state, env, outputs(inc, 0n), E + 1n);
    expect(() => verifyNameTx(state, env, outputs(inc, 0n), E + 2n)).toThrow(/expired name cannot be increased/);
  });
  it('recovers with the recovery key only; replaces owner and recovery', () => {
    const state = registered();
    const byOwnerOnly = signed(state, { op: NameOp.Recover, id, newRecoveryHash: w4.address, sequence: 1n, nextPkHash: w3.address }, w2);
    expect(() => verifyNameTx(state, env, outputs(byOwnerOnly, 0n), 234n)).toThrow(/recovery address/);
    const p = signed(state, { op: NameOp.Recover, id, newRecoveryHash: w4.address, sequence: 1n, nextPkHash: w3.address }, w1);
    verifyNameTx(state, env, outputs(p, 0n), 234n);
    applyNameTx(state, env, outputs(p, 0n), 234n);
    expect(state.get(id)).toMatchObject({ recoveryHash: w4.address, nextPkHash: w3.address, updatedBlockHeight: 234n });
  });
  it('enables subnames: only "@" records; subnames pay the top name; top expiration follows', () => {
    const state = registered();
    const price = 100_000n * COIN;
    const toggle = signed(state, { op: NameOp.ToggleAllowSubnames, id, allowSubnames: true, subnamePrice: price, subnameFeeRecipient: w4.address, sequence: 1n, nextPkHash: w1.address }, w1);
    verifyNameTx(state, env, outputs(toggle, 0n), 234n);
    applyNameTx(state, env, outputs(toggle, 0n), 234n);
    expect(state.get(id)).toMatchObject({ allowSubnames: true, subnamePrice: price, subnameFeeRecipient: w4.address, dataRecords: [] });
    const at = signed(state, { op: NameOp.UpdateRecord, id, records: [{ key: AT_RECORD_KEY, ttl: 0, data: Uint8Array.of(1), checksum: null }], sequence: 2n, nextPkHash: w1.address }, w1);
    verifyNameTx(state, env, outputs(at, 0n), 235n);
    applyNameTx(state, env, outputs(at, 0n), 235n);
    const other = signed(state, { op: NameOp.UpdateRecord, id, records: [record('abc', 'v')], sequence: 3n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(other, 0n), 236n)).toThrow(/only the record key '@'/);
    const disable = signed(state, { op: NameOp.ToggleAllowSubnames, id, allowSubnames: false, subnamePrice: 0n, subnameFeeRecipient: w4.address, sequence: 3n, nextPkHash: w1.address }, w1);
    expect(() => verifyNameTx(state, env, outputs(disable, 0n), 236n)).toThrow(/cannot be disabled/);

    const sub = register('subNameTest.test');
    const subFee = 6n * 10n * price;
    expect(() => verifyNameTx(state, env, outputs(sub, FEE_6M_10KB), 237n)).toThrow(/second output must pay the subname fee/);
    expect(() => verifyNameTx(state, env, outputs(sub, FEE_6M_10KB, [{ address: w4.address, amount: subFee - 1n }]), 237n)).toThrow(/at least/);
    verifyNameTx(state, env, outputs(sub, FEE_6M_10KB, [{ address: w4.address, amount: subFee }]), 237n);
    applyNameTx(state, env, outputs(sub, FEE_6M_10KB, [{ address: w4.address, amount: subFee }]), 237n);
    expect(state.count()).toBe(2);
    expect(() => verifyNameTx(state, env, outputs(sub, FEE_6M_10KB, [{ address: w4.address, amount: subFee }]), 238n)).toThrow(/already registered/);
    // A subname for 12 months raises the top name's expiration.
    const sub12 = register('deep.test', 12 * P.monthBlocks);
    applyNameTx(state, env, outputs(sub12, 2n * FEE_6M_10KB, [{ address: w4.address, amount: 2n * subFee }]), 240n);
    expect(state.get(id)!.expirationBlockHeight).toBe(240n + 12n * BigInt(P.monthBlocks));
    expect(() => verifyNameTx(state, env, outputs(register('a.b.test'), FEE_6M_10KB), 241n)).toThrow(/at most 2 labels/);
  });
  it('refuses a subname without its top name or when the top name does not allow subnames', () => {
    const empty = new MapNameState();
    expect(() => verifyNameTx(empty, env, outputs(register('sub.test'), FEE_6M_10KB), 2n)).toThrow(/top name of this subname is not registered/);
    const state = registered();
    expect(() => verifyNameTx(state, env, outputs(register('sub.test'), FEE_6M_10KB), 2n)).toThrow(/does not allow subnames/);
  });
});

describe('per-block rules (§5.3, §5.5, §5.6)', () => {
  it('keeps an expired name through the grace period, then removes it; the name can be registered again', () => {
    const state = registered(1n);
    const E = 518_401n;
    const G = BigInt(P.gracePeriodBlocks);
    expect(expireNames(state, E + G, P)).toEqual([]);
    // Still extendable in the grace period.
    verifyNameTx(state, env, outputs({ op: NameOp.Extend, id, extensionTimeInBlocks: SIX }, FEE_6M_10KB), E + 10n);
    expect(() => verifyNameTx(state, env, outputs(register(), FEE_6M_10KB), E + G)).toThrow(/already registered/);
    verifyNameTx(state, env, outputs(register(), FEE_6M_10KB), E + G + 1n);
    expect(expireNames(state, E + G + 1n, P)).toEqual([id]);
    expect(state.count()).toBe(0);
  });
  it('pays pool ÷ blocks left per block, the whole pool once nothing lasts longer', () => {
    const state = registered(1n);
    const reward = payNameReward(state, 2n);
    expect(reward).toBe(FEE_6M_10KB / (518_401n - 2n));
    expect(state.getMeta().rewardPool).toBe(FEE_6M_10KB - reward);
    const late = payNameReward(state, 600_000n);
    expect(late).toBe(FEE_6M_10KB - reward);
    expect(state.getMeta().rewardPool).toBe(0n);
  });
  it('checksums touched names, all names on superblocks, zeros when empty', () => {
    const state = registered(1n);
    const leaf = nameRecordChecksum(state.get(id)!, 'forMerkle');
    expect(nameStateChecksum(state, 1n, [id, id])).toEqual(leaf);
    expect(nameStateChecksum(state, 2n, [])).toEqual(EMPTY_NAME_STATE_CHECKSUM);
    expect(nameStateChecksum(state, 1000n, [])).toEqual(leaf);
    expect(nameStateChecksum(new MapNameState(), 1000n, [])).toEqual(EMPTY_NAME_STATE_CHECKSUM);
  });
});
