/**
 * Wallet reads of web wallets and explorers (reference-client-methods.md `activity`, `activity2`,
 * `gettotalbalance`, `walletlist`, `supply`, `listwallets`).
 */
import { decodeWalletState } from '../../chain/wallet-state.js';
import { addressToText } from '../../formats/address.js';
import { formatAmount } from '../../formats/amount.js';
import type { NodeModules } from '../../node/modules.js';
import { lightActivity, lightActivity2, type Activity, type Activity2, type Activity2Query, type ActivityQuery } from '../../explorer/activity.js';
import { parseTransactionId } from '../../codec/transaction.js';
import { askNetwork } from './light.js';

import { invalidParams, methodFor } from '../types.js';
import { selectKey } from './params.js';
import { walletDictionary } from './wallet.js';

/** The modules these operations use. */
export type WalletActivityModules = Pick<NodeModules, 'chain' | 'wallet' | 'mempool' | 'activity' | 'light'>;

const method = methodFor<WalletActivityModules>();

/** Largest `activity` page. */
export const MAX_ACTIVITY_PAGE = 10_000;
/** Largest `walletlist` answer (the wallet state can hold millions of addresses). */
export const MAX_WALLET_LIST = 100_000;

/** The activity query of the parameters. */
function activityQuery(p: { fromIndex: number; count: number; type: number; descending: string; wallet?: string | undefined }, ctx: WalletActivityModules): ActivityQuery {
  return { fromIndex: p.fromIndex, count: p.count, type: p.type, descending: p.descending === 'true', ...(p.wallet !== undefined ? { key: selectKey(ctx, p.wallet) } : {}) };
}

/** The `activity2` query of the parameters (Ixian-Core GenericAPIServer onActivity2). */
function activity2Query(p: { fromId?: string | undefined; count: number; type: number; descending: string; wallet?: string | undefined }, ctx: WalletActivityModules): Activity2Query {
  // A record id: a text txid, or this node's fee-reward id `fee-<height>` (as `activity` names it).
  if (p.fromId !== undefined && !/^fee-\d+$/.test(p.fromId)) {
    try {
      parseTransactionId(p.fromId);
    } catch (e) {
      throw invalidParams(`Invalid fromId: ${(e as Error).message}`);
    }
  }
  return { ...(p.fromId !== undefined ? { fromId: p.fromId } : {}), count: p.count, type: p.type, descending: p.descending === 'true', key: selectKey(ctx, p.wallet) };
}

export const walletActivityMethods = [
  method({
    name: 'activity',
    group: 'Wallet',
    summary: "History of the node's own addresses as Activity records (received, sent, mining, signing and fee rewards; pending, final, error)",
    params: [
      { name: 'fromIndex', kind: 'integer', default: 0, min: 0, description: 'Records to skip' },
      { name: 'count', kind: 'integer', default: 50, min: 0, max: MAX_ACTIVITY_PAGE, description: 'Maximum number of records' },
      { name: 'type', kind: 'integer', default: -1, min: -1, max: 202, description: '-1 every type, else 100 received, 101 sent, 200 mining, 201 signing, 202 fee reward' },
      // The reference reads `descending` as true only when it is exactly 'true'; absent, oldest first (GenericAPIServer onActivity).
      { name: 'descending', kind: 'string', default: 'false', description: "Newest first when exactly 'true'; else (and when absent) oldest first" },
      { name: 'wallet', kind: 'string', description: 'Primary address of one of the node wallets; default all' },
      { name: 'orderBy', kind: 'string', description: 'Accepted for compatibility; records are ordered by block height' },
    ],
    result: { description: 'Array of Activity {seedHash, wallet, from, toList, type, data, value, timestamp, status, blockHeight, txid}' },
    handler: (p, ctx): Activity[] => ctx.activity.query(activityQuery(p, ctx)),
    // A light node's own transactions: sent from here, or paid to it as the headers showed.
    light: (p, ctx) => {
      const light = ctx.light!;
      return lightActivity(ctx.wallet, light.wallet.all(), (h) => Number(light.headers.get(h)?.block.timestamp ?? 0n), activityQuery(p, ctx));
    },
  }),
  method({
    name: 'activity2',
    group: 'Wallet',
    summary: "History of one node wallet as the 2026 reference's Activity objects (its web wallet calls this), paged by record id",
    params: [
      { name: 'fromId', kind: 'string', description: 'Id of the record the page starts after (exclusive); an id not listed starts from the first' },
      { name: 'count', kind: 'integer', default: 50, min: 0, max: MAX_ACTIVITY_PAGE, description: 'Maximum number of records; 0 means 50, as in the reference' },
      { name: 'type', kind: 'integer', default: -1, min: -1, max: 32767, description: '-1 or 0 every type, else 100 received, 101 sent, 200 mining, 201 signing, 202 fee reward, 400 name' },
      // As for `activity`: true only when exactly 'true' (GenericAPIServer onActivity2).
      { name: 'descending', kind: 'string', default: 'false', description: "Newest first when exactly 'true'; else (and when absent) oldest first" },
      { name: 'wallet', kind: 'string', description: 'Primary address of one of the node wallets; default the main wallet' },
    ],
    result: { description: 'Array of Activity2 {id, seedHash, type, timestamp, status (1 pending, 2 final, 3 expired, 5 rejected), fromAddressList, toAddressList, value, fee, appliedBlockHeight, transaction (null)}' },
    handler: (p, ctx): Activity2[] => ctx.activity.query2(activity2Query(p, ctx)),
    light: (p, ctx) => {
      const light = ctx.light!;
      return lightActivity2(ctx.wallet, light.wallet.all(), (h) => Number(light.headers.get(h)?.block.timestamp ?? 0n), activity2Query(p, ctx));
    },
  }),
  method({
    name: 'getTotalBalance',
    group: 'Wallet',
    summary: "Total balance of a node wallet's addresses minus its pending outgoing amounts",
    params: [{ name: 'wallet', kind: 'string', description: 'Primary address of the wallet; default the main wallet' }],
    result: { description: 'CoinNumber string' },
    handler: (p, ctx) => {
      const key = selectKey(ctx, p.wallet);
      let total = 0n;
      for (const a of key.addresses()) total += ctx.chain.wallet(a.address).balance - ctx.mempool.pendingSpendOf(a.address);
      return formatAmount(total);
    },
    // Balances from a master, less the node's own pending spends.
    light: async (p, ctx) => {
      const key = selectKey(ctx, p.wallet);
      const wallet = ctx.light!.wallet;
      const addresses = key.addresses().map((a) => a.address);
      const balances = await askNetwork(() => Promise.all(addresses.map((a) => wallet.balance(a))));
      return formatAmount(addresses.reduce((total, a, i) => total + balances[i]! - wallet.pendingSpendOf(a), 0n));
    },
  }),
  method({
    name: 'walletList',
    group: 'Wallet',
    summary: `Every wallet of the wallet state as getWallet dictionaries (at most ${MAX_WALLET_LIST})`,
    params: [],
    result: { description: 'Array of wallet dictionaries' },
    handler: (_p, ctx) => {
      const out: ReturnType<typeof walletDictionary>[] = [];
      for (const { key, value } of ctx.chain.store.db('wallets').getRange({ limit: MAX_WALLET_LIST, snapshot: false })) {
        out.push(walletDictionary(addressToText(new Uint8Array(key as Buffer)), decodeWalletState(value)));
      }
      return out;
    },
  }),
  method({
    name: 'supply',
    group: 'Wallet',
    summary: 'Coins in existence (the sum of every balance)',
    params: [],
    result: { description: 'CoinNumber string' },
    handler: (_p, ctx) => formatAmount(ctx.chain.supply()),
  }),
  method({
    name: 'listWallets',
    group: 'Wallet',
    summary: "Primary addresses of the node's wallets",
    params: [],
    result: { description: 'Array of Base58 addresses' },
    handler: (_p, ctx) => ctx.wallet.keys.map((k) => k.primaryText),
    light: 'same',
  }),
];
