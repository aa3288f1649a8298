// The contract of src/core/hash.ts: argument checks (TypeError / RangeError with "expected … got …"),
// default truncation lengths, fresh outputs, and a core instance whose memory grows underneath.
import { describe, expect, it, vi } from 'vitest';
import * as hash from '../../src/core/hash.js';
import { CoreInstance, coreInstance } from '../../src/core/instance.js';
import { createHashFunctions } from '../../src/core/hash.js';
import { wasmModule } from '../../src/core/wasm.js';
import { hashesOf, hex, nodeDigest, testBytes } from '../vectors/hash-vectors.js';

const ALL = ['sha3_256', 'sha3_512', 'sha3_512sq', 'sha3_512sqTrunc', 'sha512', 'sha512sqTrunc'] as const;
const TRUNCATING = ['sha3_512sqTrunc', 'sha512sqTrunc'] as const;
const call = (name: (typeof ALL)[number], ...args: unknown[]) => (hash[name] as (...a: unknown[]) => Uint8Array)(...args);

describe('hash API contract', () => {
  it.each(ALL)('%s rejects data that is not a Uint8Array with a TypeError', (name) => {
    const wrong: [unknown, string][] = [
      ['abc', 'a string'], [[1, 2, 3], 'an array'], [new ArrayBuffer(4), 'ArrayBuffer'], [null, 'null'],
      [undefined, 'undefined'], [new Uint16Array(2), 'Uint16Array'], [new DataView(new ArrayBuffer(2)), 'DataView'], [42, 'a number'],
    ];
    for (const [value, shown] of wrong) {
      expect(() => call(name, value), String(shown)).toThrow(TypeError);
      expect(() => call(name, value), String(shown)).toThrow(new RegExp(`^${name}: expected data as a Uint8Array, got .*${shown}`));
    }
  });

  it.each(TRUNCATING)('%s checks the length: integer 1..64', (name) => {
    const x = new Uint8Array(3);
    for (const bad of [0, 65, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32 + 44]) {
      expect(() => call(name, x, bad), String(bad)).toThrow(RangeError);
      expect(() => call(name, x, bad), String(bad)).toThrow(`${name}: expected length to be an integer from 1 to 64, got ${bad}`);
    }
    for (const bad of ['44', null, 44n]) {
      expect(() => call(name, x, bad), String(bad)).toThrow(TypeError);
      expect(() => call(name, x, bad), String(bad)).toThrow(/expected length as a number, got/);
    }
    expect(call(name, x, 1)).toHaveLength(1);
    expect(call(name, x, 64)).toHaveLength(64);
  });

  it('truncates to 44 bytes by default; sqTrunc(x, 64) is the full double hash', () => {
    const x = testBytes(100, 'contract-default');
    expect(hex(hash.sha3_512sqTrunc(x))).toBe(hex(nodeDigest('sha3-512', x, 2).subarray(0, 44)));
    expect(hex(hash.sha512sqTrunc(x))).toBe(hex(nodeDigest('sha512', x, 2).subarray(0, 44)));
    expect(hex(hash.sha3_512sqTrunc(x, undefined))).toHaveLength(88);
    expect(hash.sha3_512sqTrunc(x, 64)).toEqual(hash.sha3_512sq(x));
  });

  it.each(ALL)('%s returns a fresh, owned array and leaves its input alone', (name) => {
    const x = testBytes(80, `contract-fresh-${name}`);
    const before = hex(x);
    const a = call(name, x);
    const b = call(name, x);
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(a.length); // not a view of WASM memory
    a.fill(0);
    expect(call(name, x)).toEqual(b);
    expect(hex(x)).toBe(before);
  });

  it('accepts Buffers (a Uint8Array subclass) and gives plain Uint8Arrays back', () => {
    const x = Buffer.from('ixian');
    const out = hash.sha3_512(x);
    expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
    expect(hex(out)).toBe(hex(nodeDigest('sha3-512', x)));
  });

  it('keeps one core instance per thread', () => {
    expect(coreInstance()).toBe(coreInstance());
  });

  it('rebuilds its memory view after the core memory grew (as Argon2id does)', () => {
    const { core, hashes } = hashesOf('simd');
    const x = testBytes(300, 'contract-grow');
    const before = core.bytes();
    expect(hex(hashes.sha3_512(x))).toBe(hex(nodeDigest('sha3-512', x)));
    core.exports.memory.grow(1);
    expect(before.byteLength).toBe(0); // the old view is detached
    expect(hex(hashes.sha3_512(x))).toBe(hex(nodeDigest('sha3-512', x)));
    expect(hex(hashes.sha512sqTrunc(x))).toBe(hex(nodeDigest('sha512', x, 2).subarray(0, 44)));
    expect(core.bytes().byteLength).toBeGreaterThan(before.byteLength);
  });
});

describe('core instance from a compiled Module', () => {
  it('CoreInstance accepts an already compiled build', () => {
    const h = createHashFunctions(new CoreInstance('scalar', wasmModule('core', 'scalar')));
    const x = testBytes(100, 'contract-module');
    expect(hex(h.sha3_512(x))).toBe(hex(nodeDigest('sha3-512', x)));
  });

  it('adoptCoreModule makes the thread instance, and refuses once there is one', async () => {
    vi.resetModules(); // a fresh instance.ts: this "thread" has no core instance yet
    const fresh = await import('../../src/core/instance.js');
    const adopted = fresh.adoptCoreModule(wasmModule('core', 'scalar'), 'scalar');
    expect(fresh.coreInstance()).toBe(adopted);
    expect(adopted.flavour).toBe('scalar');
    expect(() => fresh.adoptCoreModule(wasmModule('core', 'simd'), 'simd')).toThrow(/already has its core instance/);
  });
});
