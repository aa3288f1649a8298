/**
 * The name lookup a master answers for peers (`getNameRecord`, src/node/node.ts `peerNameRecord`):
 * a registered name's record; an id that is no name id (a truncated section, a bad length byte,
 * garbage of a name id's size) is "no such name", never a throw the peer handler logs as an ERROR.
 * The answer carries the name's data records: a light node's getRegNameDataRecords has no other source.
 */
import { describe, expect, it } from 'vitest';
import { addressFromText } from '../../src/formats/address.js';
import { NAME_REWARD_POOL_ADDRESS } from '../../src/formats/constants.js';
import { registrationCost } from '../../src/names/fees.js';
import { nameId } from '../../src/names/id.js';
import { dataRecordChecksum, type DataRecord } from '../../src/names/data-record.js';
import { merkleRoot } from '../../src/formats/merkle.js';
import { decodeStoredName, encodeStoredName } from '../../src/names/name-record.js';
import { CONSENSUS_NAME_PARAMS as P } from '../../src/names/params.js';
import { encodeNamePayload, NameOp } from '../../src/names/payloads.js';
import { applyNameTx } from '../../src/names/rules.js';
import { MapNameState } from '../../src/names/state.js';
import { peerNameRecord } from '../../src/node/node.js';
import { MAX_NAME_RECORD_BYTES } from '../../src/network/protocol/messages.js';
import { nameFromPeerAnswer } from '../../src/rpc/methods/names.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';

const OWNER = Uint8Array.of(0, ...new Uint8Array(32).fill(4));
const id = nameId('test', 'IxiTest');

function registered(): MapNameState {
  const state = new MapNameState();
  const payload = { op: NameOp.Register, id, registrationTimeInBlocks: P.minRegistrationBlocks, capacity: 10, recoveryHash: OWNER, nextPkHash: OWNER } as const;
  const pool = addressFromText(NAME_REWARD_POOL_ADDRESS);
  const outcome = applyNameTx(state, { params: P, poolAddress: pool }, [{ address: pool, amount: registrationCost(P.minRegistrationBlocks, 10, P), data: encodeNamePayload(payload) }], 1n);
  expect(outcome.applied).toBe(true);
  return state;
}

describe('peerNameRecord', () => {
  it('answers a registered name with its record, absolute or not', () => {
    const state = registered();
    expect(id).toHaveLength(65);
    for (const absolute of [true, false]) {
      const bytes = peerNameRecord(state, id, absolute);
      expect(bytes && decodeStoredName(bytes).id).toEqual(id);
    }
  });

  it("carries the name's data records, in order, as the header's Merkle root commits to them", () => {
    const state = registered();
    const stored = state.get(id)!;
    stored.dataRecords = [1, 2].map((ttl): DataRecord => {
      const r: DataRecord = { key: new Uint8Array(64).fill(ttl), ttl, data: Uint8Array.of(ttl, 9, 9), checksum: null };
      return { ...r, checksum: dataRecordChecksum(r) };
    });
    stored.dataMerkleRoot = merkleRoot(stored.dataRecords.map((r) => r.checksum!));
    state.put(stored);
    const answer = decodeStoredName(peerNameRecord(state, id, true)!);
    expect(answer.dataRecords).toEqual(stored.dataRecords);
    expect(answer.dataMerkleRoot).toEqual(stored.dataMerkleRoot);
  });

  it('records too large for one nameRecord message travel not at all, the header still does (the light node says why)', () => {
    const state = registered();
    const stored = state.get(id)!;
    stored.dataRecords = [1, 2, 3].map((ttl): DataRecord => {
      const r: DataRecord = { key: new Uint8Array(64).fill(ttl), ttl, data: new Uint8Array(1024 * 1024).fill(ttl), checksum: null };
      return { ...r, checksum: dataRecordChecksum(r) };
    });
    stored.dataMerkleRoot = merkleRoot(stored.dataRecords.map((r) => r.checksum!));
    state.put(stored);
    const bytes = peerNameRecord(state, id, true)!;
    expect(bytes.length).toBeLessThanOrEqual(MAX_NAME_RECORD_BYTES);
    const answer = decodeStoredName(bytes);
    expect(answer.dataRecords).toEqual([]);
    expect(answer.dataMerkleRoot).toEqual(stored.dataMerkleRoot);
  });

  it('an id that is no name id finds no name, without throwing', () => {
    const state = registered();
    const garbage = (first: number) => Uint8Array.of(first, ...new Uint8Array(64).fill(0xab));
    const ids = [
      garbage(0x50), // a 65-byte id whose first section claims 80 bytes: "section at byte 0 is truncated"
      garbage(0x00), // a zero length byte
      garbage(0xff), // a length byte out of range
      Uint8Array.of(0x40, ...id.subarray(1, 40)), // a name id cut short
      Uint8Array.of(...id, 0x05, 1, 2), // a subname section cut short
      new Uint8Array(0),
      new Uint8Array(300).fill(1),
    ];
    for (const bad of ids) {
      for (const absolute of [true, false]) {
        expect(() => peerNameRecord(state, bad, absolute), `${bad.length} bytes from 0x${bad[0]?.toString(16)}, absolute ${absolute}`).not.toThrow();
        expect(peerNameRecord(state, bad, absolute)).toBeNull();
      }
    }
  });
});

describe("a light node's check of a master's nameRecord answer (nameFromPeerAnswer)", () => {
  /** A registered name with two data records, as a master answers it. */
  function answerWithRecords(): Uint8Array {
    const state = registered();
    const stored = state.get(id)!;
    stored.dataRecords = [1, 2].map((ttl): DataRecord => {
      const r: DataRecord = { key: new Uint8Array(64).fill(ttl), ttl, data: Uint8Array.of(ttl, 9, 9), checksum: null };
      return { ...r, checksum: dataRecordChecksum(r) };
    });
    stored.dataMerkleRoot = merkleRoot(stored.dataRecords.map((r) => r.checksum!));
    state.put(stored);
    return peerNameRecord(state, id, true)!;
  }
  const serverBusy = (f: () => unknown, message: RegExp): void => {
    let caught: unknown;
    try {
      f();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RpcError);
    expect(caught).toMatchObject({ code: RpcCode.ServerBusy });
    expect((caught as Error).message).toMatch(message);
  };

  it('takes the records the header commits to', () => {
    expect(nameFromPeerAnswer(answerWithRecords()).dataRecords.map((r) => r.ttl)).toEqual([1, 2]);
  });

  it('answers -32005, not the caller\'s -32602, for bytes that do not decode, a changed record, and records left out', () => {
    const good = answerWithRecords();
    serverBusy(() => nameFromPeerAnswer(good.subarray(0, good.length - 3)), /does not decode/);
    serverBusy(() => nameFromPeerAnswer(Uint8Array.of(1, 2, 3)), /does not decode/);
    // A record's data changed (its checksum as sent kept): it no longer matches the header's Merkle root.
    const tampered = decodeStoredName(good);
    tampered.dataRecords[1] = { ...tampered.dataRecords[1]!, data: Uint8Array.of(2, 9, 8) };
    serverBusy(() => nameFromPeerAnswer(encodeStoredName(tampered)), /Merkle root/);
    // The header alone (its records left out, as for records too large for one message).
    const header = decodeStoredName(good);
    header.dataRecords = [];
    serverBusy(() => nameFromPeerAnswer(encodeStoredName(header)), /too large to reach a light node/);
  });
});
