// The store's cost of a block's transaction records as the chain grows (built code, dist/): blocks
// of 6,000 records (~1.3 KB each, random 40-byte txids) committed through the node's own store
// (src/state/store.ts, LMDB, durable commits) in the two layouts, in the same run:
//  - by sequence (the node's): the record under its apply sequence in `applied` (keys that only
//    grow), the txid → 8-byte sequence in `transactions`;
//  - by txid (the layout before): the record under its txid in `transactions` (a random key),
//    the txid under its sequence in `applied`.
// Printed: the process's CPU per record (JS and LMDB's commit) over each stretch of the growth.
// STORE_BENCH_BLOCKS sets how many blocks, a multiple of 5 (default 100: 600,000 records, ~1.3 GB per layout).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { openStore } = await import(join(dist, 'state/store.js'));
const { u64Key } = await import(join(dist, 'state/keys.js'));

const BLOCK = 6_000;
/** The growth is reported in this many equal stretches. */
const STRETCHES = 5;
/** Disk one block's records take in LMDB (measured: ~1.3 GB for 600,000), with room. */
const BYTES_PER_BLOCK = 16 * 2 ** 20;
const asked = Number(process.env.STORE_BENCH_BLOCKS ?? 100);
if (!Number.isInteger(asked) || asked < STRETCHES || asked % STRETCHES !== 0) {
  throw new Error(`STORE_BENCH_BLOCKS must be a multiple of ${STRETCHES} (≥ ${STRETCHES}), got ${process.env.STORE_BENCH_BLOCKS}`);
}
// One layout's store at a time: fewer blocks where the temporary directory's disk is short.
const { bavail, bsize } = statfsSync(os.tmpdir());
const BLOCKS = Math.min(asked, Math.floor((bavail * bsize) / BYTES_PER_BLOCK / 5) * 5);
if (BLOCKS < 5) throw new Error(`${os.tmpdir()} has too little free disk for this suite (~${(5 * BYTES_PER_BLOCK) / 2 ** 20} MB at least)`);
if (BLOCKS < asked) console.log(`(${BLOCKS} blocks, not ${asked}: the free disk under ${os.tmpdir()} holds no more)`);
const record = randomBytes(1_300);

/** CPU µs per record for each fifth of the growth, committing `blocks` blocks in `layout`. */
async function grow(layout, blocks = BLOCKS) {
  const dir = mkdtempSync(join(os.tmpdir(), 'dltnode-store-bench-'));
  const store = openStore(dir);
  const txDb = store.db('transactions');
  const appliedDb = store.db('applied');
  const perStretch = [];
  let seq = 0;
  let cpu = 0;
  try {
    for (let b = 1; b <= blocks; b++) {
      const ids = Array.from({ length: BLOCK }, () => randomBytes(40));
      const before = process.cpuUsage();
      await store.write(() => {
        for (const id of ids) {
          const at = u64Key(++seq);
          if (layout === 'sequence') {
            appliedDb.put(at, record);
            txDb.put(id, at);
          } else {
            txDb.put(id, record);
            appliedDb.put(at, id);
          }
        }
      });
      const used = process.cpuUsage(before);
      cpu += used.user + used.system;
      if (b % (blocks / STRETCHES) === 0) {
        perStretch.push({ records: seq, micros: cpu / ((blocks / STRETCHES) * BLOCK) });
        cpu = 0;
      }
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return perStretch.slice(0, STRETCHES);
}

// Both code paths compiled first (a few blocks each, not counted), so neither pays the JIT's start.
await grow('sequence', STRETCHES);
await grow('txid', STRETCHES);
const bySequence = await grow('sequence');
const byTxid = await grow('txid');
console.log(`stored transactions, blocks of ${BLOCK.toLocaleString('en-US')} records committed durably; CPU per record over each stretch:`);
console.log('  records stored   by sequence (ours)   by txid (before)   ratio');
for (let i = 0; i < bySequence.length; i++) {
  const s = bySequence[i];
  const t = byTxid[i];
  console.log(`  ${('≤ ' + s.records.toLocaleString('en-US')).padEnd(16)} ${(s.micros.toFixed(1) + ' µs').padStart(19)} ${(t.micros.toFixed(1) + ' µs').padStart(18)}   ${(t.micros / s.micros).toFixed(2)}×`);
}
