/**
 * Property test over a real node: random and malformed parameters sent to every node-core operation,
 * over POST (any JSON values) and GET (any query strings), always get a JSON reply — a result, or an
 * error the caller can act on (never -32603, never a hang, never a crash). Bounded runs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNode, type NodeProcess } from './harness.js';

const OPERATIONS: Record<string, string[]> = {
  addTransaction: ['to', 'from', 'wallet', 'primaryAddress', 'fee', 'autofee', 'relayNodeAddress', 'requestId'],
  calculateTransactionFee: ['to', 'from', 'wallet', 'primaryAddress', 'fee', 'autofee'],
  createRawTransaction: ['to', 'from', 'fee', 'autofee', 'sign', 'json'],
  sendRawTransaction: ['transaction'],
  txu: ['fromIndex', 'count'],
  txa: ['fromIndex', 'count'],
  tx: ['fromIndex', 'count'],
  getTransaction: ['id'],
  decodeTransaction: ['transaction'],
  decodeRawTransaction: ['transaction'],
  getWallet: ['id'],
  getBalance: ['address'],
  myWallet: [],
  myPubKey: [],
  generateNewAddress: ['address'],
  verifyMiningSolution: ['nonce', 'blocknum', 'diff'],
  getMiningBlock: ['algo'],
  verify: ['publicKey', 'signature', 'message', 'hash'],
  validateAddress: ['address'],
  sign: ['message', 'hash'],
  status: ['verbose', 'vv'],
  getBlock: ['num', 'bytes'],
};
/** Codes a caller may get for bad parameters (interface.md §Errors; -32001 for funds). */
const ACCEPTABLE_ERRORS = new Set([-32602, -32001]);
const RUNS_PER_OPERATION = 20;

let node: NodeProcess;
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';

beforeAll(async () => {
  node = await startNode();
});
afterAll(async () => {
  await node?.stop();
});

/** Values that look almost right, and values of every JSON kind. */
const value = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.stringMatching(/^[0-9a-fA-F]{0,140}$/),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
    fc.constantFrom(STRANGER, `${STRANGER}_1`, `${STRANGER}_0.5-${STRANGER}_1`, `${STRANGER}_`, '_1', '-', '1', '0', '-1', 'true', ''),
  );

const paramsFor = (names: string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(Object.fromEntries([...names, 'extra'].map((n) => [n, value()])), { requiredKeys: [] });

function expectActionable(method: string, params: unknown, reply: { status: number; result: unknown; error: { code: number; message: string } | null }) {
  expect(reply.status, `${method} ${JSON.stringify(params)}`).toBe(200);
  if (reply.error === null) return;
  expect(reply.result).toBeNull();
  expect(typeof reply.error.message).toBe('string');
  expect(reply.error.message.length).toBeGreaterThan(0);
  expect(ACCEPTABLE_ERRORS.has(reply.error.code), `${method} ${JSON.stringify(params)} → ${reply.error.code} ${reply.error.message}`).toBe(true);
}

it('every operation answers random parameters with a result or an actionable error (POST and GET)', async () => {
  for (const [method, names] of Object.entries(OPERATIONS)) {
    await fc.assert(
      fc.asyncProperty(paramsFor(names), fc.boolean(), async (params, get) => {
        const r = await node.rpc(method, params, { get });
        expectActionable(method, params, r);
      }),
      { numRuns: RUNS_PER_OPERATION },
    );
  }
  // Still alive and producing.
  const h = await node.height();
  await node.waitForHeight(h + 1);
}, 120_000);

it('malformed bodies get JSON errors, not crashes', async () => {
  for (const body of ['{', '[]', '{"method":"txu","params":[1,2]}', '{"method":"txu","params":"x"}', 'null', '{"method":5}']) {
    const r = await node.http('/txu', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const parsed = JSON.parse(r.text) as { error: { code: number } | null };
    expect(parsed.error?.code ?? 0, body).toBeLessThan(0);
  }
  expect((await node.call('status'))['DLT Status']).toBe('Active');
});
