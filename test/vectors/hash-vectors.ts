// Loader of the hand-written hash vector files in this folder (format and provenance: README.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreInstance } from '../../src/core/instance.js';
import { createHashFunctions, type HashFunctions } from '../../src/core/hash.js';
import type { WasmFlavour } from '../../src/core/wasm.js';

/** Both builds of the core program: every hash suite runs against each (practice P11, P19). */
export const FLAVOURS: WasmFlavour[] = ['simd', 'scalar'];

/** The hash functions bound to a fresh instance of one build. */
export function hashesOf(flavour: WasmFlavour): { core: CoreInstance; hashes: HashFunctions } {
  const core = new CoreInstance(flavour);
  return { core, hashes: createHashFunctions(core) };
}

export type Message =
  | { ascii: string; repeat?: number }
  | { hex: string; repeat?: number }
  | { shake256: string; length: number };

export interface HashVector {
  alg?: string;
  fn?: keyof HashFunctions;
  length?: number;
  message: Message;
  digest: string;
}

export function loadVectors(file: string): HashVector[] {
  const path = join(dirname(fileURLToPath(import.meta.url)), file);
  return (JSON.parse(readFileSync(path, 'utf8')) as { vectors: HashVector[] }).vectors;
}

export function messageBytes(m: Message): Uint8Array {
  if ('shake256' in m) return new Uint8Array(createHash('shake256', { outputLength: m.length }).update(m.shake256).digest());
  const unit = 'ascii' in m ? Buffer.from(m.ascii, 'latin1') : Buffer.from(m.hex, 'hex');
  return new Uint8Array(Buffer.concat(Array.from({ length: m.repeat ?? 1 }, () => unit)));
}

/** A short label of a message for assertion messages. */
export function describeMessage(m: Message): string {
  if ('shake256' in m) return `SHAKE256(${m.shake256}, ${m.length} B)`;
  const text = 'ascii' in m ? JSON.stringify(m.ascii.slice(0, 16)) : `0x${m.hex}`;
  return m.repeat ? `${text} × ${m.repeat}` : text;
}

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Deterministic test bytes: SHAKE256 of a label naming the seed. */
export function testBytes(length: number, seed: number | string): Uint8Array {
  return messageBytes({ shake256: `hash-test-${seed}`, length });
}

/** node:crypto digest of `data` under `alg`, applied `rounds` times (2 = the "sq" double hash). */
export function nodeDigest(alg: string, data: Uint8Array, rounds = 1): Uint8Array {
  let d: Uint8Array = data;
  for (let i = 0; i < rounds; i++) d = createHash(alg).update(d).digest();
  return new Uint8Array(d);
}
