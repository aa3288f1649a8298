/**
 * Parsing helpers shared by the node-core handlers: addresses and `<address>_<amount>` lists
 * (interface.md addTransaction "Format"), with the -32602 texts of reference-rpc-messaging.md §2.1.
 */
import { Address } from '../../formats/address.js';
import { parseAmount } from '../../formats/amount.js';
import { ExtendedAddressFlag, parseExtendedAddress, type ExtendedAddress } from '../../formats/extended-address.js';
import type { NodeModules } from '../../node/modules.js';
import type { WalletKey } from '../../wallet/wallet.js';
import { invalidParams } from '../types.js';

/** Parses a Base58 address; `message` is the -32602 text on failure. */
export function addressParam(text: string, message: string): Address {
  try {
    return Address.fromText(text);
  } catch {
    throw invalidParams(message);
  }
}

/**
 * A recipient: a plain address or an extended one `<address>_<suffix>` (reference-formats §7.8):
 * the payment goes to the base address and the suffix's tag becomes the output's data.
 */
function recipientParam(text: string): { address: Address; tag: Uint8Array | null } {
  let ext: ExtendedAddress;
  try {
    ext = parseExtendedAddress(text);
  } catch {
    throw invalidParams('Invalid to address was specified');
  }
  if (ext.flag === ExtendedAddressFlag.End2End) {
    throw invalidParams(`Invalid to address ${text}: an End2End extended address needs the recipient online to give payment instructions; pay its plain address instead`);
  }
  return { address: ext.address, tag: ext.tag };
}

/**
 * The entries of `addr1_amt1-addr2_amt2` (interface.md: entries separated by `-`, address and
 * amount by `_`). Base58 has no `-`, so a `-` right after an entry's `_` is a minus sign when what
 * follows it is no entry of its own (it holds no `_`): `addr_-5` is the entry `addr` with the
 * amount `-5`, refused as negative, not an empty amount and a stray `5`.
 */
function entriesOf(text: string): string[] {
  const entries: string[] = [];
  for (const part of text.split('-')) {
    const last = entries.length - 1;
    if (last >= 0 && entries[last]!.endsWith('_') && !part.includes('_')) entries[last] += `-${part}`;
    else entries.push(part);
  }
  return entries;
}

/** `addr1_amt1-addr2_amt2` entries (interface.md: entries separated by `-`, address and amount by `_`). */
export function amountList(text: string, side: 'to' | 'from'): { address: Address; amount: bigint; tag: Uint8Array | null }[] {
  const entries = entriesOf(text);
  const seen = new Set<string>();
  return entries.map((entry) => {
    const at = entry.lastIndexOf('_');
    if (at <= 0) throw invalidParams(`Invalid ${side} entry ${JSON.stringify(entry)}: expected <address>_<amount>`);
    const { address, tag } = side === 'to' ? recipientParam(entry.slice(0, at)) : { address: addressParam(entry.slice(0, at), 'Invalid from address was specified'), tag: null };
    // The reference's message, then what is wrong with the value (src/formats/amount.ts names it).
    const amountText = entry.slice(at + 1);
    let amount: bigint;
    try {
      // More than 8 decimals are truncated to 8, as the reference does; a result of 0 is still refused.
      amount = parseAmount(amountText, { strictDecimals: false });
    } catch (e) {
      throw invalidParams(`Invalid ${side} amount was specified: ${(e as Error).message}`);
    }
    if (amount <= 0n) throw invalidParams(`Invalid ${side} amount was specified: ${JSON.stringify(amountText)} must be greater than 0`);
    if (seen.has(address.base58Address)) throw invalidParams(`Duplicate ${side} address ${address.base58Address}`);
    seen.add(address.base58Address);
    return { address, amount, tag };
  });
}

/**
 * The node's wallet whose primary address is `text` (the `wallet` parameters, generateNewAddress's
 * `address`). One of its derived addresses is named as such: it is no wallet, its primary is.
 */
export function walletByPrimary(ctx: Pick<NodeModules, 'wallet'>, text: string): WalletKey {
  const key = ctx.wallet.byPrimaryText(text);
  if (key) return key;
  let address: Uint8Array | null = null;
  try {
    address = Address.fromText(text).addressNoChecksum;
  } catch {
    // not an address at all: unknown
  }
  const owner = address && ctx.wallet.keys.find((k) => k.nonceOf(address) !== null);
  if (owner) throw invalidParams(`Unknown wallet ${text}: it is a derived address of this node's wallet ${owner.primaryText}; give that primary address`);
  throw invalidParams(`Unknown wallet ${text}: not one of this node's wallets`);
}

/** The signing key chosen by `wallet` and `primaryAddress` (interface.md addTransaction). */
export function selectKey(ctx: Pick<NodeModules, 'wallet'>, wallet?: string, primaryAddress?: string): WalletKey {
  let key = ctx.wallet.primary;
  if (wallet !== undefined) key = walletByPrimary(ctx, wallet);
  if (primaryAddress !== undefined) {
    const chosen = ctx.wallet.byPrimaryText(primaryAddress);
    if (!chosen || (wallet !== undefined && chosen !== key)) {
      throw invalidParams(`Invalid primaryAddress ${primaryAddress}: not a primary address of the selected wallet`);
    }
    key = chosen;
  }
  return key;
}
