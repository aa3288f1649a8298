/**
 * Transactions (interface.md "Transactions"; reference-rpc-messaging.md §2.1–§2.5, §2.11).
 */
import { PaymentBuilder, type PaymentRequest } from '../../chain/builder.js';
import { knownTx, knownTxFromBytes, type KnownTx } from '../../chain/tx-codec.js';
import { toDecodedForm, toStringForm, toStringFormJson } from '../../chain/tx-json.js';
import { JsonText } from '../envelope.js';
import { formatAmount, parseAmount } from '../../formats/amount.js';
import { toHex } from '../../formats/bytes.js';
import { parseTransactionId } from '../../codec/transaction.js';
import type { NodeContext } from '../../node/context.js';
import { invalidParams, RpcCode, RpcError, type MethodDef, type ParamDef } from '../types.js';
import { amountList, selectKey } from './params.js';

const paymentParams: ParamDef[] = [
  { name: 'to', kind: 'string', required: true, description: 'Hyphen-separated <address>_<amount> entries', missingMessage: "Parameter 'to' is missing." },
  { name: 'from', kind: 'string', description: 'Advanced: hyphen-separated <address>_<amount> inputs' },
  { name: 'wallet', kind: 'string', description: 'Primary address of the wallet that signs and pays' },
  { name: 'primaryAddress', kind: 'string', description: 'Which key of the wallet signs' },
  { name: 'fee', kind: 'string', description: 'Explicit fee (CoinNumber); default the size-dependent fee (0.005 per started kB)' },
  { name: 'autofee', kind: 'boolean', description: "With 'from': add the fee to the first input" },
  { name: 'relayNodeAddress', kind: 'string', description: 'Client nodes only; ignored by this node' },
  { name: 'requestId', kind: 'string', description: 'Optional tracking identifier' },
];

/**
 * Largest `count` of txa/tx/txu. A transaction's string form is ~1.6 kB (its sender's key in
 * Base58), so a page of 1,000 is ~1.6 MB built in a few ms; larger pages held the event loop for
 * tenths of a second each and let clients that never read pile replies up in memory (issue 13).
 */
export const MAX_PAGE_COUNT = 1000;

const pageParams: ParamDef[] = [
  { name: 'fromIndex', kind: 'integer', default: 0, min: 0, description: 'Start index' },
  { name: 'count', kind: 'integer', default: 50, min: 0, max: MAX_PAGE_COUNT, description: `Maximum number of transactions to list (0 to ${MAX_PAGE_COUNT})` },
];

const rawParam: ParamDef = {
  name: 'transaction',
  kind: 'hex',
  required: true,
  description: 'Raw transaction, hex',
  missingMessage: 'transaction parameter is missing',
};

function paymentRequest(p: Record<string, unknown>, ctx: NodeContext): PaymentRequest {
  const key = selectKey(ctx, p.wallet as string | undefined, p.primaryAddress as string | undefined);
  const outputs = amountList(p.to as string, 'to').map((e) => ({
    address: e.address.addressNoChecksum,
    amount: e.amount,
    ...(e.tag ? { data: e.tag } : {}),
  }));
  let from: PaymentRequest['from'];
  if (p.from !== undefined) {
    from = amountList(p.from as string, 'from').map((e) => {
      if (!key.nonceOf(e.address.addressNoChecksum)) throw invalidParams('Invalid from address was specified');
      return { address: e.address.addressNoChecksum, amount: e.amount };
    });
  }
  let fee: bigint | undefined;
  if (p.fee !== undefined && p.fee !== '') {
    try {
      fee = parseAmount(p.fee as string);
    } catch (err) {
      throw invalidParams(`Invalid fee was specified: ${(err as Error).message}`);
    }
  }
  return { key, outputs, from, fee, autofee: p.autofee === true };
}

const builderOf = (ctx: NodeContext) => new PaymentBuilder(ctx.chain, ctx.mempool, ctx.network);

function decodeRaw(ctx: NodeContext, bytes: Uint8Array): KnownTx {
  try {
    // Decoded through a Buffer view: the codec's slices (signature, keys, addresses) are then views
    // of the parameter's bytes, not ~1 kB of copies per transaction.
    return knownTxFromBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ctx.network);
  } catch (err) {
    throw invalidParams(`Invalid transaction: ${(err as Error).message}`);
  }
}

async function submit(ctx: NodeContext, k: KnownTx, code: number): Promise<KnownTx> {
  const [reason] = await ctx.submit([k]);
  if (reason === 'Balance is too low') throw new RpcError(RpcCode.InsufficientFunds, reason);
  if (reason) throw new RpcError(code, `The transaction was rejected: ${reason}`);
  return k;
}

function page(map: KnownTx[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of map) out[k.textId] = toStringForm(k);
  return out;
}

export const transactionMethods: MethodDef<NodeContext>[] = [
  {
    name: 'addTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Builds, signs and submits a payment from the node wallet',
    params: paymentParams,
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => new JsonText(toStringFormJson(await submit(ctx, builderOf(ctx).buildSigned(paymentRequest(p, ctx)), RpcCode.InvalidParams))),
  },
  {
    name: 'calculateTransactionFee',
    group: 'Transactions',
    summary: 'The fee addTransaction would pay, without sending anything',
    params: paymentParams,
    result: { description: 'CoinNumber string' },
    handler: (p, ctx) => formatAmount(builderOf(ctx).build(paymentRequest(p, ctx)).fee),
  },
  {
    name: 'createRawTransaction',
    group: 'Transactions',
    summary: 'Builds a payment and returns its hex (signed with `sign`), or its JSON with `json`',
    params: [
      ...paymentParams,
      { name: 'sign', kind: 'boolean', description: 'Sign the transaction' },
      { name: 'json', kind: 'boolean', description: 'Return the string form instead of hex' },
    ],
    result: { description: 'Hex of the v7 full form, or Transaction (string form)' },
    handler: (p, ctx) => {
      const builder = builderOf(ctx);
      const req = paymentRequest(p, ctx);
      const k = p.sign === true ? builder.buildSigned(req) : knownTx(builder.build(req).tx, ctx.network);
      return p.json === true ? toStringForm(k) : toHex(k.bytes);
    },
  },
  {
    name: 'sendRawTransaction',
    group: 'Transactions',
    summary: 'Submits a signed raw transaction to the pool',
    params: [rawParam],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => new JsonText(toStringFormJson(await submit(ctx, decodeRaw(ctx, p.transaction as Uint8Array), RpcCode.InvalidParams))),
  },
  {
    name: 'txu',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Pending transactions of this node, in arrival order',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    handler: (p, ctx) => page(ctx.mempool.page(p.fromIndex as number, p.count as number)),
  },
  {
    name: 'txa',
    group: 'Transactions',
    summary: 'Applied transactions, most recently applied first',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    handler: (p, ctx) => page(ctx.chain.appliedPage(p.fromIndex as number, p.count as number)),
  },
  {
    name: 'tx',
    group: 'Transactions',
    summary: 'Applied transactions, then pending ones',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    handler: (p, ctx) => {
      const applied = ctx.chain.appliedPage(p.fromIndex as number, p.count as number);
      const rest = (p.count as number) - applied.length;
      const skipped = Math.max(0, (p.fromIndex as number) - ctx.chain.appliedCount());
      return page([...applied, ...ctx.mempool.page(skipped, rest)]);
    },
  },
  {
    name: 'getTransaction',
    group: 'Transactions',
    summary: 'One transaction by id, applied or pending',
    params: [{ name: 'id', kind: 'string', required: true, description: 'Transaction id', missingMessage: "Parameter 'id' is missing" }],
    result: { description: 'Transaction (string form)' },
    handler: (p, ctx) => {
      let id: Uint8Array;
      try {
        id = parseTransactionId(p.id as string).binary;
      } catch {
        throw invalidParams(`Invalid transaction id ${JSON.stringify(p.id)}: expected <blockHeight>-<Base58 checksum>`);
      }
      const k = ctx.chain.getTransaction(id) ?? ctx.mempool.get(id);
      if (!k) throw invalidParams(`Transaction ${p.id as string} was not found`);
      return toStringForm(k);
    },
  },
  {
    name: 'decodeTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Decodes a raw transaction into its decoded form',
    params: [rawParam],
    result: { description: 'Transaction (decoded form)' },
    handler: (p, ctx) => toDecodedForm(decodeRaw(ctx, p.transaction as Uint8Array)),
  },
  {
    name: 'decodeRawTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Decodes a raw transaction into its string form',
    params: [rawParam],
    result: { description: 'Transaction (string form)' },
    handler: (p, ctx) => toStringForm(decodeRaw(ctx, p.transaction as Uint8Array)),
  },
];

