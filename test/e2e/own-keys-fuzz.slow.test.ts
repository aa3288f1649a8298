/**
 * Property test: random raw-transaction sequences from several fresh wallets (own keys, own
 * encoder: own-codec.ts) against a real node. Invariants: every reply is clean (HTTP 200, never
 * -32603 for bad input); each transaction is accepted or refused as the model says; a refused one
 * leaves no trace (not pending, not found); replays and byte flips of a signed transaction are
 * refused; once the pool drains every balance is the model's and the supply is the genesis
 * supply minus the fees paid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { newKey, type OwnKey } from './own-codec.js';
import { startOwnNode, type OwnNode } from './own-node.js';
import { Model, cleanEnvelope, type Outcome, type Step } from './own-model.js';

const RUNS = Number(process.env.IA_FUZZ_RUNS ?? 12);
const STEPS = 12;
const GENESIS = 1000n * 100_000_000n;

const stepArb = (wallets: number): fc.Arbitrary<Step> =>
  fc.record({
    wallet: fc.nat(wallets - 1),
    to: fc.oneof(
      { weight: 6, arbitrary: fc.array(fc.integer({ min: -1, max: wallets - 1 }), { minLength: 1, maxLength: 3 }) },
      { weight: 2, arbitrary: fc.array(fc.integer({ min: -1, max: wallets - 1 }), { minLength: 4, maxLength: 40 }) },
      { weight: 1, arbitrary: fc.array(fc.integer({ min: -2, max: wallets - 1 }), { minLength: 1, maxLength: 3 }) },
    ),
    amount: fc.constantFrom('one', 'dust', 'dust', 'near', 'exact', 'above', 'random', 'random', 'random'),
    fee: fc.constantFrom('min', 'min', 'below', 'above'),
    height: fc.constantFrom('tip', 'tip', 'tip', 'ahead10', 'ahead11', 'zero'),
    dupOutput: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    derived: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    shortPubKey: fc.boolean(),
    after: fc.constantFrom('none', 'replay', 'flip'),
    flipAt: fc.nat(),
    flipMask: fc.integer({ min: 1, max: 255 }),
    rand: fc.nat(),
  }) as fc.Arbitrary<Step>;

describe('random raw transactions from fresh keys', () => {
  let node: OwnNode;
  let keys: OwnKey[];
  let model: Model;
  let genesisSupply: bigint;
  beforeAll(async () => {
    keys = [newKey(2048), newKey(2048, 3), newKey(2048, 2147483647), newKey(4096)];
    node = await startOwnNode(Object.fromEntries(keys.map((k) => [k.text, '1000'])), { blockInterval: 1 });
    model = new Model(node, keys, GENESIS);
    genesisSupply = toUnits((await node.call('supply')).result);
  }, 120_000);
  afterAll(async () => {
    console.log(JSON.stringify(Object.fromEntries([...counts].sort()), null, 1));
    await node?.stop();
  });

  it('keeps the invariants', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stepArb(keys.length), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: STEPS }), fc.nat(), async (batches, pick) => {
        for (const batch of batches) {
          // A batch of several steps is sent at once, from distinct wallets (each one's outcome then
          // depends on its own wallet only); an accepted-looking one is also sent twice at once.
          const steps = batch.filter((st, i) => batch.findIndex((o) => o.wallet === st.wallet) === i);
          const builts = [];
          for (const step of steps) builts.push(await model.build(step));
          const replies = await Promise.all(
            builts.map(async (b, i) => {
              if (!b) return [];
              const times = steps.length > 1 && b.allowed.has('accept') && steps[i]!.rand % 2 === 0 ? 2 : 1;
              return Promise.all(Array.from({ length: times }, () => node.call('sendRawTransaction', { transaction: b.hex })));
            }),
          );
          for (const [i, step] of steps.entries()) {
            const built = builts[i];
            if (!built) continue;
            const [first, twin] = replies[i]! as Awaited<ReturnType<typeof node.call>>[];
            let r = first!;
            if (twin) {
              // The same bytes twice at once: at most one is taken, the other refused.
              expect(cleanEnvelope(twin), 'twin').toBeNull();
              expect([r, twin].filter((x) => !x.error).length, `both copies of ${built.id} accepted`).toBeLessThan(2);
              if (!twin.error) r = twin;
              else expect(twin.error.code, `twin: ${JSON.stringify(twin.error)} first: ${JSON.stringify(r.error)}`).toBe(r.error ? r.error.code : -32602);
            }
            const outcome = r.error ? r.error.code : 'accept';
            tally(r.error ? `${r.error.code}:${r.error.message.slice(0, 60)}` : 'accepted');
            const what = `${JSON.stringify(step)} allowed ${[...built.allowed]} (${built.why}) got ${JSON.stringify(r.error ?? r.result?.id)}`;
            expect(cleanEnvelope(r), what).toBeNull();
            expect(built.allowed.has(outcome as Outcome), what).toBe(true);
            if (!r.error) {
              expect(r.result.id, what).toBe(built.id);
              model.accept(built.sent);
            } else {
              model.refused.add(built.id);
              const found = await node.call('getTransaction', { id: built.id });
              expect(found.error?.code, `refused ${built.id} is found: ${what}`).toBe(-32602);
            }
            if (step.after === 'replay' && !r.error) {
              const again = await node.call('sendRawTransaction', { transaction: built.hex });
              expect(cleanEnvelope(again), what).toBeNull();
              expect(again.error?.code, `replay accepted: ${what}`).toBe(-32602);
            }
            if (step.after === 'flip') {
              const b = Buffer.from(built.hex, 'hex');
              const at = step.flipAt % b.length;
              b[at]! ^= step.flipMask;
              const flipped = await node.call('sendRawTransaction', { transaction: b.toString('hex') });
              const fw = `flip byte ${at}/${b.length} ^${step.flipMask}: ${what} -> ${JSON.stringify(flipped.error ?? flipped.result?.id)}`;
              expect(cleanEnvelope(flipped), fw).toBeNull();
              if (!r.error) expect(flipped.error, `flipped copy of an accepted tx accepted: ${fw}`).not.toBeNull();
              else if (!flipped.error) {
                // Only a flip outside the checksum (a reserved byte) can pass: then it is the same transaction.
                expect(flipped.result.id, fw).toBe(built.id);
                model.refused.delete(built.id);
                model.accept(built.sent);
              }
            }
          }
        }
        // The pool holds exactly the accepted transactions not applied yet; none refused.
        const txu = Object.keys((await node.call('txu', { count: 1000 })).result);
        await model.refreshApplied();
        for (const id of txu) expect(model.sent.has(id), `txu holds ${id}, never accepted`).toBe(true);
        for (const s of model.sent.values()) if (!s.applied && !txu.includes(s.id)) {
          await model.refreshApplied();
          expect(model.sent.get(s.id)!.applied, `${s.id} accepted but neither pending nor applied`).toBe(true);
        }
        // Drain, then balances and supply.
        const end = Date.now() + 30_000;
        while ([...model.sent.values()].some((s) => !s.applied)) {
          if (Date.now() > end) throw new Error('pool did not drain in 30 s');
          await new Promise((res) => setTimeout(res, 200));
          await model.refreshApplied();
        }
        for (const [addr, bal] of model.final) {
          const w = await node.call('getWallet', { id: addr });
          expect(toUnits(w.result.balance), `balance of ${addr}`).toBe(bal);
        }
        expect(toUnits((await node.call('supply')).result), 'supply').toBe(genesisSupply - model.feesPaid);
        // An applied transaction sent again is refused and changes nothing.
        const old = [...model.sent.values()];
        if (old.length) {
          const again = await node.call('sendRawTransaction', { transaction: old[pick % old.length]!.hex });
          expect(cleanEnvelope(again), 'old replay').toBeNull();
          expect(again.error?.code, 'old replay').toBe(-32602);
        }
      }),
      { numRuns: RUNS, endOnFailure: true, ...(process.env.IA_FUZZ_SEED ? { seed: Number(process.env.IA_FUZZ_SEED) } : {}) },
    );
  }, 600_000);
});

const counts = new Map<string, number>();
const tally = (k: string): void => void counts.set(k, (counts.get(k) ?? 0) + 1);

function toUnits(s: string): bigint {
  const [i, f = ''] = s.split('.');
  return BigInt(i!) * 100_000_000n + BigInt((f + '00000000').slice(0, 8));
}
