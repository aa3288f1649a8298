// The Genesis transaction mints its output: its JSON forms show fee 0, not −amount (issue 13).
import { describe, expect, it } from 'vitest';
import { genesisTransaction } from '../../src/chain/genesis.js';
import { knownTx } from '../../src/chain/tx-codec.js';
import { toDecodedForm, toStringForm, toStringFormJson } from '../../src/chain/tx-json.js';
import { COIN } from '../../src/formats/amount.js';

describe('genesis transaction JSON', () => {
  const k = knownTx(genesisTransaction([{ address: new Uint8Array(45).fill(1), amount: 1_000_000n * COIN }], 0n), 'reg');

  it('string form: fee 0, total = amount', () => {
    const form = toStringForm(k);
    expect(form.fee).toBe('0.00000000');
    expect(form.amount).toBe('1000000.00000000');
    expect(form.totalAmount).toBe('1000000.00000000');
    expect(JSON.parse(toStringFormJson(k))).toEqual(form);
  });

  it('decoded form: fee 0', () => {
    expect(toDecodedForm(k).fee).toEqual({ amount: 0n });
  });
});
