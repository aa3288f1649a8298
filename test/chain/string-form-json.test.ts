// The string form written directly as JSON text (the sendRawTransaction/addTransaction result) is
// exactly JSON.stringify of the object form, for any decodable transaction.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toStringForm, toStringFormJson } from '../../src/codec/json.js';
import { decodeTransaction } from '../../src/codec/transaction.js';
import { JsonText, toJson } from '../../src/rpc/envelope.js';
import { canonicalWireTxArb, serialize } from '../codec/arbitraries.js';
import { transferSigned } from '../codec/vectors.js';

const same = (tx: ReturnType<typeof decodeTransaction>) => expect(toStringFormJson(tx)).toBe(JSON.stringify(toStringForm(tx)));

describe('toStringFormJson', () => {
  it('the docs transfer', () => same(decodeTransaction(transferSigned(), 'test')));

  it('random decodable transactions (any inputs, outputs, data, keys)', () => {
    let decoded = 0;
    fc.assert(
      fc.property(canonicalWireTxArb, (t) => {
        let tx;
        try {
          tx = decodeTransaction(serialize(t), 'test');
        } catch {
          return; // not a valid transaction: nothing to render
        }
        decoded++;
        same(tx);
      }),
      { numRuns: 300 },
    );
    expect(decoded).toBeGreaterThan(50);
  });

  it('maps an object would reorder (array-index keys) or merge (repeats) come out as the object does', () => {
    const tx = decodeTransaction(transferSigned(), 'test');
    const reordered = { ...tx, inputs: [{ ...tx.inputs[0]!, key: Uint8Array.of(7) }, { ...tx.inputs[0]!, key: Uint8Array.of(0) }] };
    expect(toStringFormJson(reordered)).toBe(JSON.stringify(toStringForm(reordered)));
    expect(Object.keys(JSON.parse(toStringFormJson(reordered)).from)).toEqual(['1', '8']);
    const merged = { ...tx, outputs: [tx.outputs[0]!, { ...tx.outputs[0]!, amount: 5n }] };
    expect(toStringFormJson(merged)).toBe(JSON.stringify(toStringForm(merged)));
  });

  it('the envelope emits JsonText as is, and as its value when nested', () => {
    expect(toJson(new JsonText('{"a":"1"}'))).toBe('{"a":"1"}');
    expect(toJson({ r: new JsonText('{"a":"1"}') })).toBe('{"r":{"a":"1"}}');
  });
});
