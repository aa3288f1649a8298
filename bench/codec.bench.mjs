// Transaction codec: decode + checksum of the §8.6 docs transfer (signed, 1123 bytes, testnet),
// one at a time and in batches, against the reference decoder of test/codec (TypeScript, bigints,
// node:crypto SHA3), transpiled here so the bench and the tests share one copy.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import ts from 'typescript';
import { decodeTransaction, decodeTransactionBatch, fromHex, toHex } from '../dist/index.js';
import { printTable, runTasks, pseudoRandomBytes } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** Loads test/codec/reference-decoder.ts (self-contained apart from type imports) as JS. */
async function loadReferenceDecoder() {
  const source = readFileSync(join(here, '../test/codec/reference-decoder.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const dir = mkdtempSync(join(tmpdir(), 'codec-bench-'));
  const file = join(dir, 'reference-decoder.mjs');
  writeFileSync(file, outputText);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// §15.3: the signed full form = head ‖ 528-byte docs key ‖ fc0002 ‖ 512-byte signature ‖ 00.
const spec = readFileSync(join(here, '../test/codec/vectors.ts'), 'utf8');
const docs = readFileSync(join(here, '../test/formats/docs-vectors.ts'), 'utf8');
const keyBlock = /DOCS_VERIFY_PUBLIC_KEY_HEX =([^;]*);/.exec(docs)[1];
const keyHex = [...keyBlock.matchAll(/'([0-9a-f]+)'/g)].map((m) => m[1]).join('');
const head = /TRANSFER_HEAD = '([0-9a-f]+)'/.exec(spec)[1];
const tx = Uint8Array.from([...fromHex(head), ...fromHex(keyHex), 0xfc, 0x00, 0x02, ...pseudoRandomBytes(512), 0]);
const EXPECTED = 'c81b2017498e7c838d1d2d960c80e2c18a102959680414dd37ef143bcc777d7796b171d873683f93425a91fd';
const lock = new TextEncoder().encode('IxiTest');

const { referenceDecode } = await loadReferenceDecoder();
if (toHex(decodeTransaction(tx, 'test').checksum) !== EXPECTED) throw new Error('codec checksum mismatch');
if (toHex(referenceDecode(tx, lock).checksum) !== EXPECTED) throw new Error('reference checksum mismatch');

// rows 4d (byte 14) and 5d (byte 70) of the full form are not in the preimage (§8.5)
const preimage = Uint8Array.from([...lock, ...fromHex(head).subarray(0, 14), ...fromHex(head).subarray(15, 70), ...fromHex(head).subarray(71), ...fromHex(keyHex)]);
const sha3sq = (b) => createHash('sha3-512').update(createHash('sha3-512').update(b).digest()).digest().subarray(0, 44);
if (toHex(sha3sq(preimage)) !== EXPECTED) throw new Error('preimage mismatch');

const BATCH = 256;
const batch = Array.from({ length: BATCH }, () => tx);

const rows = await runTasks([
  { name: `ours: decode + checksum, batch of ${BATCH}`, fn: () => decodeTransactionBatch(batch, 'test'), opsPerCall: BATCH, bytes: tx.length },
  { name: 'ours: decode + checksum, one at a time', fn: () => decodeTransaction(tx, 'test'), bytes: tx.length },
  { name: 'TS reference decoder + node:crypto sha3', fn: () => referenceDecode(tx, lock), bytes: tx.length },
  // the floor of any JS decoder hashing with node:crypto: the two SHA3-512 of the 612-byte preimage alone
  { name: 'node:crypto sha3_512sq of the preimage only', fn: () => sha3sq(preimage), bytes: tx.length },
]);
printTable(`decode + checksum of a signed ${tx.length}-byte v7 transaction (tx/s)`, rows, `ours: decode + checksum, batch of ${BATCH}`);
