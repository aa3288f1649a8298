/**
 * Wallet (interface.md "Wallet"; reference-rpc-messaging.md §2.6) and the node-wallet reads.
 */
import { WALLET_TYPE_NAMES, type WalletState } from '../../chain/wallet-state.js';
import { addressToText } from '../../formats/address.js';
import { formatAmount } from '../../formats/amount.js';
import { toHex } from '../../formats/bytes.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';
import { MAX_DERIVED_ADDRESSES, WalletLimitError } from '../../wallet/wallet.js';
import { addressParam, walletByPrimary } from './params.js';
import { askNetwork } from './light.js';

/** The modules these operations use. */
export type WalletModules = Pick<NodeModules, 'chain' | 'wallet' | 'light'>;

const method = methodFor<WalletModules>();

const idParam = {
  name: 'id',
  kind: 'string',
  required: true,
  description: 'Base58 wallet address',
  missingMessage: "Parameter 'id' is missing",
} as const;

/** The getWallet dictionary of a wallet state (also `walletlist`'s entries). */
export function walletDictionary(id: string, w: WalletState) {
  const signers = w.allowedSigners.map(addressToText);
  return {
    id,
    balance: formatAmount(w.balance),
    type: WALLET_TYPE_NAMES[w.type] ?? String(w.type),
    requiredSigs: String(w.requiredSigs),
    allowedSigners: signers.length ? `(${signers.length + 1} keys): ${[id, ...signers].join(',')}` : 'null',
    extraData: w.extraData ? toHex(w.extraData) : 'null',
    publicKey: w.publicKey ? toHex(w.publicKey) : 'null',
  };
}

export const walletMethods = [
  method({
    name: 'getWallet',
    group: 'Wallet',
    maturity: 'Finalized',
    summary: 'Public state of a wallet address at the latest block',
    params: [idParam],
    result: { description: 'Wallet object' },
    handler: (p, ctx) => {
      const address = addressParam(p.id, 'Invalid address was specified');
      return walletDictionary(address.base58Address, ctx.chain.wallet(address.addressNoChecksum));
    },
  }),
  method({
    name: 'getBalance',
    group: 'Wallet',
    summary: 'Balance of an address at the latest block',
    params: [{ ...idParam, missingMessage: "Parameter 'address' is missing", name: 'address' }],
    result: { description: 'CoinNumber string' },
    handler: (p, ctx) =>
      formatAmount(ctx.chain.wallet(addressParam(p.address, 'Invalid address was specified').addressNoChecksum).balance),
    // A light node asks a master (getBalance2, reference-network §7.3).
    light: async (p, ctx) => {
      const address = addressParam(p.address, 'Invalid address was specified').addressNoChecksum;
      return formatAmount(await askNetwork(() => ctx.light!.wallet.balance(address)));
    },
  }),
  method({
    name: 'myWallet',
    group: 'Wallet',
    summary: "Addresses of the node's wallets with their balances",
    params: [],
    result: { description: 'Map of address to CoinNumber' },
    handler: (_p, ctx) => {
      const out: Record<string, string> = {};
      for (const key of ctx.wallet.keys) {
        for (const a of key.addresses()) out[addressToText(a.address)] = formatAmount(ctx.chain.wallet(a.address).balance);
      }
      return out;
    },
    light: async (_p, ctx) => {
      const out: Record<string, string> = {};
      const addresses = ctx.wallet.keys.flatMap((k) => k.addresses().map((a) => a.address));
      const balances = await askNetwork(() => Promise.all(addresses.map((a) => ctx.light!.wallet.balance(a))));
      addresses.forEach((a, i) => (out[addressToText(a)] = formatAmount(balances[i]!)));
      return out;
    },
  }),
  method({
    name: 'myPubKey',
    group: 'Wallet',
    summary: "Hex public key of the node's primary wallet",
    params: [],
    result: { description: 'Hex string' },
    handler: (_p, ctx) => toHex(ctx.wallet.primary.publicKey),
    light: 'same',
  }),
  method({
    name: 'generateNewAddress',
    group: 'Wallet',
    summary: `Derives a new address of the node's wallet (16-byte nonce, reference-formats §7.3); at most ${MAX_DERIVED_ADDRESSES} per wallet`,
    params: [{ name: 'address', kind: 'string', description: 'Primary address of the wallet; default the main wallet' }],
    result: { description: 'Base58 address' },
    handler: (p, ctx) => {
      const key = p.address === undefined ? ctx.wallet.primary : walletByPrimary(ctx, p.address);
      try {
        return addressToText(ctx.wallet.newAddress(key));
      } catch (e) {
        if (e instanceof WalletLimitError) throw invalidParams(e.message);
        throw e;
      }
    },
    light: 'same',
  }),
];

