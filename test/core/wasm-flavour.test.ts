// DLTNODE_WASM picks the core build (src/core/wasm.ts): 'scalar' or 'simd', or unset/empty for the
// engine's best. Any other value is refused: a typo would silently test or benchmark the SIMD build.
import { afterEach, describe, expect, it } from 'vitest';
import { coreFlavour, SIMD_SUPPORTED } from '../../src/core/wasm.js';

describe('coreFlavour (DLTNODE_WASM)', () => {
  const saved = process.env.DLTNODE_WASM;
  afterEach(() => {
    if (saved === undefined) delete process.env.DLTNODE_WASM;
    else process.env.DLTNODE_WASM = saved;
  });

  it('scalar and simd are taken; unset or empty is the engine default', () => {
    process.env.DLTNODE_WASM = 'scalar';
    expect(coreFlavour()).toBe('scalar');
    process.env.DLTNODE_WASM = 'simd';
    expect(coreFlavour()).toBe('simd');
    process.env.DLTNODE_WASM = '';
    expect(coreFlavour()).toBe(SIMD_SUPPORTED ? 'simd' : 'scalar');
    delete process.env.DLTNODE_WASM;
    expect(coreFlavour()).toBe(SIMD_SUPPORTED ? 'simd' : 'scalar');
  });

  it.each(['Scalar', 'sse', 'scalar '])('%j is refused with a RangeError naming the variable', (value) => {
    process.env.DLTNODE_WASM = value;
    expect(() => coreFlavour()).toThrow(RangeError);
    expect(() => coreFlavour()).toThrow(`DLTNODE_WASM: expected 'scalar' or 'simd' (or unset), got ${JSON.stringify(value)}`);
  });
});
