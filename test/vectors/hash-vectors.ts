// Loader of the hand-written hash vector files in this folder (format and provenance: README.md).
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
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

/** The window exports of the core program (assembly/core/sha3.ts). */
export interface WindowExports {
  hash_input_window(): number;
  hash_input_window_size(): number;
  hash_output_window(): number;
}

/** A streaming hash of the core program, as init / update / final exports. */
export interface StreamingExports {
  init(): void;
  update(inPtr: number, length: number): void;
  final(outPtr: number): void;
}

/**
 * Streams `data` from the input window through init, three updates and final, for every split
 * (i, j) with i in steps of 3 and every j ≥ i, and fails at the first digest that differs from
 * `want` (practice P16: the buffering of partial blocks is the bug class this finds).
 */
export function expectEverySplit(core: CoreInstance, stream: StreamingExports, data: Uint8Array, want: Uint8Array, label: string): void {
  const e = core.exports as unknown as WindowExports;
  const input = e.hash_input_window(), output = e.hash_output_window();
  const n = data.length;
  const wanted = Buffer.from(want);
  core.bytes().set(data, input);
  for (let i = 0; i <= n; i += 3) {
    for (let j = i; j <= n; j++) {
      stream.init();
      stream.update(input, i);
      stream.update(input + i, j - i);
      stream.update(input + j, n - j);
      stream.final(output);
      const got = Buffer.from(core.bytes().subarray(output, output + want.length));
      if (!got.equals(wanted)) expect.fail(`${label} split at ${i}/${j}: ${got.toString('hex')}`);
    }
  }
}

/** Hash of hash × `steps` from the empty input, compared with node:crypto at every step. */
export function expectChain(ours: (data: Uint8Array) => Uint8Array, alg: string, steps = 256): void {
  let mine: Uint8Array = new Uint8Array(0), ref: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < steps; i++) {
    mine = ours(mine);
    ref = nodeDigest(alg, ref);
    expect(hex(mine), `${alg} chain step ${i}`).toBe(hex(ref));
  }
}

/**
 * A one-shot `*_into` export given the same address for input and output: its digest must still
 * be right (the AS callers and the JS wrapper rely on it).
 */
export function expectInPlace(
  core: CoreInstance, into: (inPtr: number, length: number, outPtr: number) => void, data: Uint8Array, want: Uint8Array, label: string,
): void {
  const input = (core.exports as unknown as WindowExports).hash_input_window();
  core.bytes().set(data, input);
  into(input, data.length, input);
  expect(hex(core.read(input, want.length)), label).toBe(hex(want));
}
