/**
 * The miner's pool task `searchPow` (tasks/search-pow.ts): the packed form round-trips, a job
 * hashes exactly the nonces `prefix ‖ u32 LE (start + i)` with the v3 Argon2id of §11.1 (checked
 * against the §11.4 vector: its nonce 0x01…0x20 fails every difficulty), bad jobs are refused,
 * and the miner picks blocks by its search mode.
 */
import { describe, expect, it } from 'vitest';
import { coreInstance } from '../../src/core/instance.js';
import { powHash } from '../../src/core/pow.js';
import { sha3_512sq } from '../../src/core/hash.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { createWorkerPool } from '../../src/pool/index.js';
import { searchPowTask, SEARCH_MAX_PREFIX, type SearchJob } from '../../src/pool/tasks/search-pow.js';

const CHECKSUM = sha3_512sq(new TextEncoder().encode('ixian test block'));
const SOLVER = fromHex('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645');
/** §11.4: nonce 0x01…0x20 → this Argon2id hash (fails every difficulty: its first byte is not 0). */
const VECTOR_HASH = '256a719d5f41f44b59f8110fbe57b4b54a6eb0b34a2251d8ff11c12b586033fe';
const prefix = Uint8Array.from({ length: 28 }, (_, i) => i + 1);
/** Counter bytes 1d 1e 1f 20 read as u32 LE. */
const VECTOR_START = 0x201f1e1d;

describe('searchPow task', () => {
  it('packs and unpacks a job; results round-trip', () => {
    const job: SearchJob = { blockChecksum: CHECKSUM, solverAddress: SOLVER, difficulty: 123n, prefix, start: 7, count: 3 };
    const [back] = searchPowTask.unpack(searchPowTask.pack([job]));
    expect(back).toMatchObject({ difficulty: 123n, start: 7, count: 3 });
    expect(toHex(back!.prefix)).toBe(toHex(prefix));
    expect(() => searchPowTask.unpack(searchPowTask.pack([{ ...job, prefix: new Uint8Array(SEARCH_MAX_PREFIX + 1) }]))).toThrow(/prefix/);
  });

  it('hashes the §11.4 nonce as prefix ‖ counter, and finds nothing where the hash fails', () => {
    expect(toHex(powHash(CHECKSUM, SOLVER, fromHex(toHex(prefix) + '1d1e1f20')))).toBe(VECTOR_HASH);
    const r = searchPowTask.runOne({ blockChecksum: CHECKSUM, solverAddress: SOLVER, difficulty: 0n, prefix, start: VECTOR_START, count: 1 }, { core: coreInstance() });
    expect(r).toEqual({ tried: 1, nonce: null });
  });

  it('through the pool: one result per job; bad jobs refused', async () => {
    const pool = createWorkerPool({ threads: 1 });
    try {
      const jobs = [0, 1].map((start) => ({ blockChecksum: CHECKSUM, solverAddress: SOLVER, difficulty: 0xffff_ffff_ffff_ffffn, prefix, start, count: 2 }));
      expect(await pool.searchPow(jobs)).toEqual([{ tried: 2, nonce: null }, { tried: 2, nonce: null }]);
      await expect(pool.searchPow([{ ...jobs[0]!, prefix: new Uint8Array(0) }])).rejects.toThrow(/prefix of 0 bytes/);
      await expect(pool.searchPow([{ ...jobs[0]!, count: -1 }])).rejects.toThrow(/count/);
    } finally {
      await pool.close();
    }
  });
});
