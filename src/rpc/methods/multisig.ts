/**
 * Multisig wallets (reference-client-methods.md: `addmultisigtransaction`, `addmultisigtxsignature`,
 * `addmultisigkey`, `delmultisigkey`, `changemultisigs`; Ixian-Core `GenericAPIServer.cs`): each
 * builds a multisig transaction signed by an address of the node's wallet that may sign for the
 * wallet (src/multisig/builder.ts), submits it to the pool and answers its string form, like
 * `addTransaction`. The parameter names and the missing-parameter texts are the reference's; its
 * -8/-4 codes are this node's -32602, its -6 (funds) this node's -32001 `Balance is too low`.
 */
import { toStringForm } from '../../chain/tx-json.js';
import type { KnownTx } from '../../chain/tx-codec.js';
import { parseTransactionId } from '../../codec/transaction.js';
import { FORCE_TRANSACTION_PRICE, TRANSACTION_PRICE } from '../../formats/constants.js';
import { formatAmount, parseAmount } from '../../formats/amount.js';
import { MultisigBuilder } from '../../multisig/builder.js';
import { MultisigChangeType } from '../../multisig/payload.js';
import type { NodeModules } from '../../node/modules.js';
import { submissionError } from '../errors.js';
import { invalidParams, methodFor } from '../types.js';
import { addressParam, amountList } from './params.js';

/** The modules these operations use. */
export type MultisigModules = Pick<NodeModules, 'chain' | 'mempool' | 'wallet' | 'network' | 'clock'>;

const method = methodFor<MultisigModules>();

const builderOf = (ctx: MultisigModules) => new MultisigBuilder(ctx.chain, ctx.mempool, ctx.wallet, ctx.network, ctx.clock);

async function submit(ctx: MultisigModules, k: KnownTx) {
  const error = await ctx.mempool.submit(k);
  if (error) throw submissionError(error);
  return toStringForm(k);
}

const walletParam = (missingMessage: string) =>
  ({ name: 'wallet', kind: 'string', required: true, description: 'Base58 address of the multisig wallet', missingMessage }) as const;

const walletOf = (text: string) => addressParam(text, `Invalid wallet address was specified: ${JSON.stringify(text)}`).addressNoChecksum;

const signerParam = {
  name: 'signer',
  kind: 'string',
  required: true,
  description: 'Base58 address of the signer to add or remove',
  missingMessage: "Parameter 'signer' is missing.",
} as const;

const signerOf = (text: string) => addressParam(text, `Invalid signer address was specified: ${JSON.stringify(text)}`).addressNoChecksum;

/** `fee` of addmultisigtransaction: the reference's price per started 1000 bytes (not an absolute fee). */
function feePerKb(text: string | undefined): bigint {
  if (text === undefined || text === '') return FORCE_TRANSACTION_PRICE;
  let fee: bigint;
  try {
    // More than 8 decimals are truncated, as for every amount (the reference's IxiNumber(string)).
    fee = parseAmount(text, { strictDecimals: false });
  } catch (err) {
    throw invalidParams(`Invalid fee was specified: ${(err as Error).message}`);
  }
  if (fee < TRANSACTION_PRICE) throw invalidParams(`Invalid fee was specified: the price per started kB must be at least ${formatAmount(TRANSACTION_PRICE)}`);
  return fee;
}

export const multisigMethods = [
  method({
    name: 'addMultiSigTransaction',
    group: 'Multisig',
    summary: 'Spends from a multisig wallet (type 997), signed by an address of this node that may sign for it; it applies once co-signed by enough signers',
    params: [
      { name: 'to', kind: 'string', required: true, description: 'Hyphen-separated <address>_<amount> entries', missingMessage: 'to parameter is missing' },
      { name: 'from', kind: 'string', required: true, description: 'Base58 address of the multisig wallet that pays', missingMessage: 'from parameter is missing' },
      { name: 'fee', kind: 'string', description: 'Fee per started 1000 bytes (CoinNumber, default 0.005), as the reference takes it' },
    ],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => {
      const outputs = amountList(p.to, 'to').map((e) => {
        if (e.tag) throw invalidParams(`Invalid to address ${e.address.base58Address}: a multisig payment cannot carry an extended-address tag (its first output carries the multisig data)`);
        return { address: e.address.addressNoChecksum, amount: e.amount };
      });
      const from = addressParam(p.from, `Invalid from address was specified: ${JSON.stringify(p.from)}`).addressNoChecksum;
      return submit(ctx, builderOf(ctx).spend(from, outputs, feePerKb(p.fee)));
    },
  }),
  method({
    name: 'addMultiSigTxSignature',
    group: 'Multisig',
    summary: 'Co-signs a pending multisig transaction (type 999) with an address of this node that may sign for the wallet and has not signed it yet',
    params: [
      walletParam('wallet parameter is missing'),
      { name: 'origtx', kind: 'string', required: true, description: 'Id of the pending multisig transaction', missingMessage: 'origtx parameter is missing' },
    ],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => {
      const wallet = walletOf(p.wallet);
      let orig: Uint8Array;
      try {
        orig = parseTransactionId(p.origtx).binary;
      } catch (err) {
        throw invalidParams(`Invalid origtx was specified: ${(err as Error).message}`);
      }
      return submit(ctx, builderOf(ctx).coSign(wallet, orig));
    },
  }),
  method({
    name: 'addMultiSigKey',
    group: 'Multisig',
    summary: 'Adds an allowed signer to a wallet (type 998); a normal wallet becomes a multisig wallet requiring 1 signature',
    params: [walletParam("Parameter 'wallet' is missing."), signerParam],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) =>
      submit(ctx, builderOf(ctx).change(walletOf(p.wallet), { kind: MultisigChangeType.AddSigner, address: signerOf(p.signer) })),
  }),
  method({
    name: 'delMultiSigKey',
    group: 'Multisig',
    summary: 'Removes an allowed signer from a multisig wallet (type 998); without signers left it is a normal wallet again',
    params: [walletParam("Parameter 'wallet' is missing."), signerParam],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) =>
      submit(ctx, builderOf(ctx).change(walletOf(p.wallet), { kind: MultisigChangeType.DelSigner, address: signerOf(p.signer) })),
  }),
  method({
    name: 'changeMultiSigs',
    group: 'Multisig',
    summary: 'Sets how many signatures a multisig wallet requires (type 998): 1 to its number of signers',
    params: [
      walletParam("Parameter 'wallet' is missing."),
      {
        name: 'sigs', kind: 'integer', required: true, min: 1, max: 255, description: 'Required signatures, 1–255 (at most the wallet’s signers)',
        missingMessage: "Parameter 'sigs' is missing.", invalidMessage: "Parameter 'sigs' must be a number between 1 and 255.",
      },
    ],
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => {
      return submit(ctx, builderOf(ctx).change(walletOf(p.wallet), { kind: MultisigChangeType.ChangeReqSigs, requiredSigs: p.sigs }));
    },
  }),
];
