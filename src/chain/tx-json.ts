/**
 * The two JSON forms of a transaction the RPC returns (reference-formats.md §9.2, §9.3;
 * reference-rpc-messaging.md §2.0; interface.md "Transaction (string form)" / "(decoded form)").
 *
 * Written in the chain area because src/codec/json.ts had not landed when the node needed it; both
 * functions take the KnownTx the chain already computed (checksum, ids) so nothing is hashed twice.
 */
import { Address, encodeBase58 } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { toHex } from '../formats/bytes.js';
import { transactionAmounts } from '../codec/transaction.js';
import type { KnownTx } from './tx-codec.js';

const b64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/** pubKey bytes are a full key (49…1023 bytes) or the signer's address (33/45 bytes). */
const isAddressBytes = (b: Uint8Array): boolean => b.length === 33 || b.length === 45;

/** String form (§9.2): the member order of the reference's toDictionary. */
export function toStringForm(k: KnownTx): Record<string, unknown> {
  const { tx } = k;
  const { amount, fee, totalAmount } = transactionAmounts(tx);
  const out: Record<string, unknown> = {
    id: k.textId,
    version: tx.version,
    blockHeight: tx.blockHeight.toString(),
    nonce: String(tx.nonce),
  };
  if (tx.signature) out.signature = toHex(tx.signature);
  if (tx.pubKey) out.pubKey = isAddressBytes(tx.pubKey) ? new Address(tx.pubKey).base58Address : encodeBase58(tx.pubKey);
  const data = tx.outputs[0]?.data;
  if (data) out.data = toHex(data);
  out.timestamp = tx.timestamp.toString();
  out.type = String(tx.type);
  out.amount = formatAmount(amount);
  out.applied = tx.applied.toString();
  out.checksum = toHex(k.checksum);
  out.from = Object.fromEntries(tx.inputs.map((i) => [encodeBase58(i.key), formatAmount(i.amount)]));
  out.to = Object.fromEntries(tx.outputs.map((o) => [new Address(o.address).base58Address, formatAmount(o.amount)]));
  out.fee = formatAmount(fee);
  out.totalAmount = formatAmount(totalAmount);
  return out;
}

/** JSON number for a u64 when it is exact, else its decimal text (never a rounded number). */
const exact = (n: bigint): number | string => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString());
const coin = (n: bigint) => ({ amount: exact(n) });

/** The signer as the reference's Address object (§9.3 `pubKey`). */
function signerObject(pubKey: Uint8Array): Record<string, unknown> {
  const carriesKey = !isAddressBytes(pubKey);
  const a = carriesKey ? Address.fromPublicKey(pubKey) : new Address(pubKey);
  return {
    version: a.version,
    addressWithChecksum: b64(a.addressWithChecksum),
    base58Address: a.base58Address,
    addressNoChecksum: b64(a.addressNoChecksum),
    sectorPrefix: b64(a.sectorPrefix),
    nonce: null,
    pubKey: carriesKey ? b64(pubKey) : null,
  };
}

/** Decoded form (§9.3): the object serialization; byte arrays in Base64, amounts as `{amount}`. */
export function toDecodedForm(k: KnownTx): Record<string, unknown> {
  const { tx } = k;
  const { amount, fee } = transactionAmounts(tx);
  return {
    version: tx.version,
    id: b64(k.id),
    type: tx.type,
    amount: coin(amount),
    fee: coin(fee),
    fromList: Object.fromEntries(tx.inputs.map((i) => [b64(i.key), coin(i.amount)])),
    toList: Object.fromEntries(
      tx.outputs.map((o) => [
        new Address(o.address).base58Address,
        { amount: coin(o.amount), data: o.data ? b64(o.data) : null, dataChecksum: o.dataChecksum ? b64(o.dataChecksum) : null },
      ]),
    ),
    blockHeight: exact(tx.blockHeight),
    nonce: tx.nonce,
    timeStamp: exact(tx.timestamp),
    checksum: b64(k.checksum),
    signature: tx.signature ? b64(tx.signature) : null,
    pubKey: tx.pubKey ? signerObject(tx.pubKey) : null,
    applied: exact(tx.applied),
  };
}
