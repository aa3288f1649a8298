// A small method table exercising every parameter kind, used by the server and dispatch tests.
import { RpcError, invalidParams, type MethodDef } from '../../src/rpc/types.js';

export interface FakeContext {
  height: bigint;
  gate?: Promise<void>;
}

export const fakeMethods: MethodDef<FakeContext>[] = [
  {
    name: 'status',
    group: 'Utilities',
    maturity: 'Finalized',
    summary: 'Node status',
    params: [
      { name: 'verbose', kind: 'boolean', description: 'verbose fields' },
      { name: 'vv', kind: 'boolean', description: 'very verbose fields' },
    ],
    result: { description: 'status object' },
    handler: (p, ctx) => ({ 'Block Height': ctx.height, verbose: p.verbose, vv: p.vv }),
  },
  {
    name: 'echo',
    group: 'Test',
    summary: 'Echoes its parameters',
    params: [
      { name: 'text', kind: 'string', required: true, description: 'text', missingMessage: 'text parameter is missing' },
      { name: 'count', kind: 'integer', min: 1, max: 1000, default: 50, description: 'count' },
      { name: 'big', kind: 'integer', bigint: true, min: 0n, description: 'a 64-bit value' },
      { name: 'data', kind: 'hex', description: 'bytes' },
    ],
    result: { description: 'the parameters' },
    handler: (p) => ({ text: p.text, count: p.count, big: p.big, dataLength: p.data === undefined ? null : (p.data as Uint8Array).length }),
  },
  {
    name: 'getWallet',
    group: 'Wallet',
    summary: 'Wallet by id',
    params: [{ name: 'id', kind: 'string', required: true, description: 'address', missingMessage: "Parameter 'id' is missing" }],
    result: { description: 'wallet' },
    handler: (p) => ({ id: p.id }),
  },
  {
    name: 'updateNameRecord',
    group: 'Name system',
    postOnly: true,
    summary: 'Updates records',
    params: [{ name: 'records[]', kind: 'string[]', required: true, description: 'records', missingMessage: "Missing parameter 'records[]'" }],
    result: { description: 'records' },
    handler: (p) => p['records[]'],
  },
  {
    name: 'slow',
    group: 'Test',
    summary: 'Waits for the context gate',
    params: [],
    result: { description: 'done' },
    handler: async (_p, ctx) => {
      await ctx.gate;
      return 'done';
    },
  },
  {
    name: 'fail',
    group: 'Test',
    summary: 'Throws',
    params: [{ name: 'kind', kind: 'string', description: 'rpc or crash' }],
    result: { description: 'never' },
    handler: (p) => {
      if (p.kind === 'rpc') throw invalidParams('contact doesn\'t exist');
      if (p.kind === 'busy') throw new RpcError(-32005, 'busy', 200);
      throw new Error('secret internal detail');
    },
  },
  {
    name: 'large',
    group: 'Test',
    summary: 'A large result',
    params: [{ name: 'kb', kind: 'integer', min: 1, max: 8192, description: 'size in KiB' }],
    result: { description: 'string' },
    handler: (p) => 'x'.repeat(((p.kb as number | undefined) ?? 1024) * 1024),
  },
];
