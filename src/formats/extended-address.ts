/**
 * Extended addresses (reference-formats.md §7.8, Δ2026): `<address>_<suffix>` where the suffix is
 * `base58(extData ‖ sha3_512sqTrunc(extData, 3))` and
 * `extData = varint(flag) ‖ (routing addressNoChecksum if flag = 3) ‖ tag (0–16 bytes, no length)`.
 * Without a suffix the text is a plain address (flag Primary, no tag).
 */
import { sha3_512sqTrunc } from '../core/hash.js';
import { Address, ADDRESS_V0_LENGTH, ADDRESS_V1_LENGTH, decodeBase58, encodeBase58, parsesAsAddress } from './address.js';
import { assertBytes, concatBytes, describeType, equalBytes } from './bytes.js';
import { AddressError } from './errors.js';
import { decodeVarBytes, decodeVarUintNumber, encodeVarBytes, encodeVarUint, type Decoded } from './varint.js';

/** Payment flags (§7.8). */
export const ExtendedAddressFlag = Object.freeze({
  /** Plain payment; a suffix exists only to carry a tag. */
  Primary: 0,
  /** The recipient must be online; the payer asks it for payment instructions. */
  End2End: 1,
  /** Pay the address directly; the tag travels with the payment (as the output's data). */
  OfflineTag: 2,
  /** A separate routing address (in the suffix) and payment address (the base part). */
  OfflineAddress: 3,
} as const);
export type ExtendedAddressFlagValue = (typeof ExtendedAddressFlag)[keyof typeof ExtendedAddressFlag];

/** Longest tag (§7.8). */
export const MAX_EXTENDED_ADDRESS_TAG_LENGTH = 16;
/** Length of the suffix checksum (§7.8). */
const SUFFIX_CHECKSUM_LENGTH = 3;
const SUFFIX_SEPARATOR = '_';

export interface ExtendedAddress {
  /** The payment address (the base part). */
  address: Address;
  flag: ExtendedAddressFlagValue;
  /** Routing address; present exactly when flag is OfflineAddress. */
  routingAddress: Address | null;
  /** Tag bytes (1–16), or null. */
  tag: Uint8Array | null;
}

function checkParts(ext: ExtendedAddress): void {
  if (typeof ext !== 'object' || ext === null) throw new TypeError(`extended address must be an object, got ${describeType(ext)}`);
  if (!(ext.address instanceof Address)) throw new TypeError('extended address: address must be an Address');
  if (![0, 1, 2, 3].includes(ext.flag)) throw new AddressError(`extended address: flag must be 0…3, got ${String(ext.flag)}`);
  const needsRouting = ext.flag === ExtendedAddressFlag.OfflineAddress;
  if (needsRouting !== (ext.routingAddress instanceof Address)) {
    throw new AddressError('extended address: a routing address is required with flag OfflineAddress (3) and only then');
  }
  if (ext.tag !== null && ext.tag !== undefined) {
    assertBytes(ext.tag, 'tag');
    if (ext.tag.length > MAX_EXTENDED_ADDRESS_TAG_LENGTH) {
      throw new AddressError(`extended address: tag is ${ext.tag.length} bytes, at most ${MAX_EXTENDED_ADDRESS_TAG_LENGTH} allowed`);
    }
  }
}

const nonEmpty = (tag: Uint8Array | null | undefined): tag is Uint8Array => tag !== null && tag !== undefined && tag.length > 0;

/**
 * Text form. Primary without a tag is the plain address.
 * @example formatExtendedAddress({ address, flag: 1, routingAddress: null, tag: null }) // "4iMK…_3ccNi"
 */
export function formatExtendedAddress(ext: ExtendedAddress): string {
  checkParts(ext);
  const base = ext.address.base58Address;
  if (ext.flag === ExtendedAddressFlag.Primary && !nonEmpty(ext.tag)) return base;
  const extData = concatBytes(
    encodeVarUint(ext.flag),
    ext.routingAddress ? ext.routingAddress.addressNoChecksum : new Uint8Array(0),
    nonEmpty(ext.tag) ? ext.tag : new Uint8Array(0),
  );
  return `${base}${SUFFIX_SEPARATOR}${encodeBase58(concatBytes(extData, sha3_512sqTrunc(extData, SUFFIX_CHECKSUM_LENGTH)))}`;
}

/**
 * Parses address text with an optional `_suffix` (the Δ2026 `validateaddress` rule, §7.6): the
 * base part is a valid address, the suffix's checksum verifies and its flag, routing address and
 * tag parse.
 * @throws AddressError naming what is wrong.
 */
export function parseExtendedAddress(text: string): ExtendedAddress {
  if (typeof text !== 'string') throw new TypeError(`address must be a string, got ${describeType(text)}`);
  const cut = text.indexOf(SUFFIX_SEPARATOR);
  const address = Address.fromText(cut < 0 ? text : text.slice(0, cut));
  if (cut < 0) return { address, flag: ExtendedAddressFlag.Primary, routingAddress: null, tag: null };
  const suffix = decodeBase58(text.slice(cut + 1), 'extended address suffix');
  if (suffix.length < 1 + SUFFIX_CHECKSUM_LENGTH) {
    throw new AddressError(`extended address suffix is ${suffix.length} bytes, expected at least ${1 + SUFFIX_CHECKSUM_LENGTH}`);
  }
  const extData = suffix.subarray(0, suffix.length - SUFFIX_CHECKSUM_LENGTH);
  if (!equalBytes(sha3_512sqTrunc(extData, SUFFIX_CHECKSUM_LENGTH), suffix.subarray(extData.length))) {
    throw new AddressError('extended address suffix: the checksum does not match');
  }
  const flag = extData[0]!; // read as a single byte (§7.8)
  if (flag > ExtendedAddressFlag.OfflineAddress) throw new AddressError(`extended address suffix: unknown flag ${flag}, expected 0…3`);
  let offset = 1;
  let routingAddress: Address | null = null;
  if (flag === ExtendedAddressFlag.OfflineAddress) {
    const version = extData[offset];
    if (version === undefined || version > 2) {
      throw new AddressError(`extended address suffix: routing address version ${version ?? '(missing)'}, expected 0, 1 or 2`);
    }
    const length = version === 0 ? ADDRESS_V0_LENGTH : ADDRESS_V1_LENGTH;
    if (offset + length > extData.length) {
      throw new AddressError(`extended address suffix: the routing address needs ${length} bytes, ${extData.length - offset} present`);
    }
    routingAddress = new Address(extData.subarray(offset, offset + length));
    offset += length;
  }
  const tag = extData.slice(offset);
  if (tag.length > MAX_EXTENDED_ADDRESS_TAG_LENGTH) {
    throw new AddressError(`extended address suffix: tag is ${tag.length} bytes, at most ${MAX_EXTENDED_ADDRESS_TAG_LENGTH} allowed`);
  }
  return { address, flag: flag as ExtendedAddressFlagValue, routingAddress, tag: tag.length > 0 ? tag : null };
}

/** Is `text` a valid plain or extended address? Never throws for a string. */
export const validateExtendedAddress = (text: string): boolean => parsesAsAddress(text, parseExtendedAddress);

/**
 * Binary form used in messages (§7.8): `IxiBytes(payment) ‖ varint(flag) ‖ [IxiBytes(routing) if
 * flag 3] ‖ IxiBytes(tag)`, addresses without checksum.
 */
export function encodeExtendedAddress(ext: ExtendedAddress): Uint8Array {
  checkParts(ext);
  return concatBytes(
    encodeVarBytes(ext.address.addressNoChecksum),
    encodeVarUint(ext.flag),
    ext.routingAddress ? encodeVarBytes(ext.routingAddress.addressNoChecksum) : new Uint8Array(0),
    encodeVarBytes(ext.tag ?? null),
  );
}

/** Reads the binary form at `offset`. @throws AddressError or VarintError naming the problem. */
export function decodeExtendedAddress(bytes: Uint8Array, offset = 0): Decoded<ExtendedAddress> {
  const readAddress = (at: number, what: string): Decoded<Address> => {
    const { value, next } = decodeVarBytes(bytes, at, ADDRESS_V1_LENGTH);
    if (value === null) throw new AddressError(`extended address: ${what} address missing at offset ${at}`);
    return { value: new Address(value), next };
  };
  const payment = readAddress(offset, 'payment');
  const { value: flag, next: afterFlag } = decodeVarUintNumber(bytes, payment.next, ExtendedAddressFlag.OfflineAddress);
  let next = afterFlag;
  let routingAddress: Address | null = null;
  if (flag === ExtendedAddressFlag.OfflineAddress) {
    const routing = readAddress(next, 'routing');
    routingAddress = routing.value;
    next = routing.next;
  }
  const tag = decodeVarBytes(bytes, next, MAX_EXTENDED_ADDRESS_TAG_LENGTH);
  return {
    value: { address: payment.value, flag: flag as ExtendedAddressFlagValue, routingAddress, tag: tag.value },
    next: tag.next,
  };
}
