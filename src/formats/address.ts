/**
 * Addresses (reference-formats.md §7): versions 0, 1 and 2; primary addresses from a public key,
 * derived addresses from a primary address and a 16-byte nonce; the 3-byte SHA-512 checksum;
 * Base58 text (§3, plain Bitcoin alphabet, no Base58Check checksum); `sectorPrefix` (§7.7).
 * Extended addresses `<address>_<suffix>` (§7.8) are in extended-address.ts.
 */
import { decodeBase58, encodeBase58, MAX_BASE58_TEXT_LENGTH } from './base58.js';
import { sha3_512, sha3_512sqTrunc, sha512sqTrunc } from '../core/hash.js';
import { assertBytes, concatBytes, describeType, equalBytes } from './bytes.js';
import { AddressError } from './errors.js';
import { INFINIMINE_ADDRESS } from './constants.js';

export type AddressVersion = 0 | 1 | 2;

/** Length of the address checksum (§7.4). */
export const ADDRESS_CHECKSUM_LENGTH = 3;
/** Length of a derived-address nonce (§7.3). */
export const ADDRESS_NONCE_LENGTH = 16;
/** `addressNoChecksum` length of a v0 address (version byte + 32-byte body). */
export const ADDRESS_V0_LENGTH = 33;
/** `addressNoChecksum` length of a v1/v2 address (version byte + 44-byte body). */
export const ADDRESS_V1_LENGTH = 45;
/** Length of `sectorPrefix` (§7.7). */
export const SECTOR_PREFIX_LENGTH = 10;
/** Serialized public keys that an address can be computed from (§7.5): 49 … 1023 bytes. */
export const ADDRESS_KEY_MIN_LENGTH = 49;
export const ADDRESS_KEY_MAX_LENGTH = 1023;
/** Length of a legacy headerless v0 public key (§6.1). */
export const HEADERLESS_KEY_LENGTH = 523;
/** Bytes of the key header skipped by v0 address hashing: version byte + i32 format version (§6.1). */
const KEY_HEADER_LENGTH = 5;
/**
 * Longest address text decoded. A plain address is at most 65 characters and an extended one
 * about 160; Base58 decoding is quadratic, so hostile long strings are refused up front.
 */
export const MAX_ADDRESS_TEXT_LENGTH = MAX_BASE58_TEXT_LENGTH;

/** `addressNoChecksum` length of each version. */
export const addressLengthOfVersion = (version: AddressVersion): number =>
  version === 0 ? ADDRESS_V0_LENGTH : ADDRESS_V1_LENGTH;

/** sha512quTrunc (§2): first `n` bytes of four rounds of SHA-512, i.e. sha512sq of sha512sq. */
const sha512quTrunc = (data: Uint8Array, n: number): Uint8Array => sha512sqTrunc(sha512sqTrunc(data, 64), n);

/** The 3-byte checksum of an `addressNoChecksum` (§7.4): `sha512sqTrunc(bytes, 3)` — SHA-2 for all versions. */
export function addressChecksum(addressNoChecksum: Uint8Array): Uint8Array {
  assertBytes(addressNoChecksum, 'addressNoChecksum');
  return sha512sqTrunc(addressNoChecksum, ADDRESS_CHECKSUM_LENGTH);
}

/**
 * The reference's `validateChecksum` (§7.6): length 36…48 and the last 3 bytes are the checksum
 * of the rest. Does not check the version byte (use `parseAddressBytes` for a strict check).
 */
export function validateChecksum(bytes: Uint8Array): boolean {
  assertBytes(bytes, 'bytes');
  if (bytes.length < ADDRESS_V0_LENGTH + ADDRESS_CHECKSUM_LENGTH || bytes.length > ADDRESS_V1_LENGTH + ADDRESS_CHECKSUM_LENGTH) {
    return false;
  }
  const split = bytes.length - ADDRESS_CHECKSUM_LENGTH;
  return equalBytes(addressChecksum(bytes.subarray(0, split)), bytes.subarray(split));
}

/**
 * The node's rule for v7 output addresses (reference `validateAddress(bytes)`, §7.6): length
 * 33…48 and version byte 0…2; no checksum check.
 */
export function isValidAddressBytes(bytes: Uint8Array): boolean {
  assertBytes(bytes, 'bytes');
  return bytes.length >= ADDRESS_V0_LENGTH && bytes.length <= ADDRESS_V1_LENGTH + ADDRESS_CHECKSUM_LENGTH && bytes[0]! <= 2;
}

/** Throws AddressError unless `bytes` is a well-formed `addressNoChecksum` (33 bytes v0, 45 bytes v1/v2). */
function checkNoChecksum(bytes: Uint8Array, what: string): AddressVersion {
  assertBytes(bytes, what);
  const version = bytes[0];
  if (version === undefined || version > 2) {
    throw new AddressError(`${what}: unknown address version ${version ?? '(empty input)'}, expected 0, 1 or 2`);
  }
  const expected = addressLengthOfVersion(version as AddressVersion);
  if (bytes.length !== expected) {
    throw new AddressError(`${what}: a version ${version} address without checksum has ${expected} bytes, got ${bytes.length}`);
  }
  return version as AddressVersion;
}

/** Is this nonce the "primary address itself" form (absent, empty or `[0x00]`, §7.3)? */
export function isPrimaryNonce(nonce: Uint8Array | null | undefined): boolean {
  if (nonce === null || nonce === undefined) return true;
  assertBytes(nonce, 'nonce');
  if (nonce.length === 0 || (nonce.length === 1 && nonce[0] === 0)) return true;
  if (nonce.length !== ADDRESS_NONCE_LENGTH) {
    throw new AddressError(`nonce must be [0x00] or ${ADDRESS_NONCE_LENGTH} bytes, got ${nonce.length} bytes`);
  }
  return false;
}

/**
 * The primary `addressNoChecksum` of a serialized public key (§7.2). The key's first byte selects
 * the version; a 523-byte headerless key is version 0.
 * @throws AddressError for a key length outside 49…1023 or a version byte above 2.
 */
export function primaryAddressFromPublicKey(publicKey: Uint8Array): Uint8Array {
  assertBytes(publicKey, 'publicKey');
  if (publicKey.length < ADDRESS_KEY_MIN_LENGTH || publicKey.length > ADDRESS_KEY_MAX_LENGTH) {
    throw new AddressError(
      `publicKey must be ${ADDRESS_KEY_MIN_LENGTH}…${ADDRESS_KEY_MAX_LENGTH} bytes to derive an address, got ${publicKey.length}`,
    );
  }
  if (publicKey.length === HEADERLESS_KEY_LENGTH) return concatBytes(Uint8Array.of(0), sha512quTrunc(publicKey, 32));
  const version = publicKey[0]!;
  switch (version) {
    case 0:
      return concatBytes(Uint8Array.of(0), sha512quTrunc(publicKey.subarray(KEY_HEADER_LENGTH), 32));
    case 1:
      return concatBytes(Uint8Array.of(1), sha512sqTrunc(publicKey.subarray(1), 44));
    case 2:
      return concatBytes(Uint8Array.of(2), sha3_512sqTrunc(publicKey, 44));
    default:
      throw new AddressError(`publicKey has address version byte ${version}, expected 0, 1 or 2`);
  }
}

/**
 * The address derived from a primary `addressNoChecksum` and a nonce (§7.3). A nonce that is
 * absent, empty or `[0x00]` gives the primary address itself (a copy).
 * @throws AddressError for a malformed primary address or a nonce that is neither `[0x00]` nor 16 bytes.
 */
export function deriveAddress(primary: Uint8Array, nonce?: Uint8Array | null): Uint8Array {
  const version = checkNoChecksum(primary, 'primary address');
  if (isPrimaryNonce(nonce)) return primary.slice();
  const n = nonce as Uint8Array;
  switch (version) {
    case 0:
      return concatBytes(Uint8Array.of(0), sha512quTrunc(concatBytes(primary, addressChecksum(primary), n), 32));
    case 1: // the hash skips the first 5 bytes of base ‖ checksum ‖ nonce (§7.3)
      return concatBytes(
        Uint8Array.of(1),
        sha512sqTrunc(concatBytes(primary, addressChecksum(primary), n).subarray(5), 44),
      );
    case 2:
      return concatBytes(Uint8Array.of(2), sha3_512sqTrunc(concatBytes(primary, n), 44));
  }
}

/** `addressNoChecksum ‖ checksum` (§7.1). */
export function addressWithChecksum(addressNoChecksum: Uint8Array): Uint8Array {
  checkNoChecksum(addressNoChecksum, 'addressNoChecksum');
  return concatBytes(addressNoChecksum, addressChecksum(addressNoChecksum));
}

/** The Base58 text of an `addressNoChecksum` (33/45 bytes): base58(address ‖ checksum). */
export function addressToText(addressNoChecksum: Uint8Array): string {
  return encodeBase58(addressWithChecksum(addressNoChecksum));
}

/** `sectorPrefix` (§7.7, Δ2026): the first 10 bytes of a single SHA3-512 of `addressNoChecksum`. */
export function sectorPrefix(addressNoChecksum: Uint8Array): Uint8Array {
  checkNoChecksum(addressNoChecksum, 'addressNoChecksum');
  return sha3_512(addressNoChecksum).slice(0, SECTOR_PREFIX_LENGTH);
}

export { decodeBase58, encodeBase58 } from './base58.js';

/**
 * Strict parse of an address given with its checksum (36 bytes v0, 48 bytes v1/v2): the version
 * byte must match the length and the checksum must be right. Returns the `addressNoChecksum`.
 */
export function parseAddressBytes(bytes: Uint8Array, what = 'address'): Uint8Array {
  assertBytes(bytes, what);
  const version = bytes[0];
  if (version === undefined || version > 2) {
    throw new AddressError(`${what}: unknown address version ${version ?? '(empty)'}, expected 0, 1 or 2`);
  }
  const expected = addressLengthOfVersion(version as AddressVersion) + ADDRESS_CHECKSUM_LENGTH;
  if (bytes.length !== expected) {
    throw new AddressError(`${what}: a version ${version} address has ${expected} bytes with its checksum, got ${bytes.length}`);
  }
  if (!validateChecksum(bytes)) throw new AddressError(`${what}: the checksum does not match`);
  return bytes.slice(0, expected - ADDRESS_CHECKSUM_LENGTH);
}

/**
 * Base58 text of a plain address (no `_` suffix) → its `addressNoChecksum` (33/45 bytes).
 * @throws AddressError naming the reason: not Base58, wrong length or version, wrong checksum.
 */
export function addressFromText(text: string): Uint8Array {
  return parseAddressBytes(decodeBase58(text), `address ${JSON.stringify(text.length > 70 ? `${text.slice(0, 70)}…` : text)}`);
}

/** An address: its `addressNoChecksum` and the forms computed from it (cached). Immutable. */
export class Address {
  readonly addressNoChecksum: Uint8Array;
  readonly version: AddressVersion;
  #withChecksum?: Uint8Array;
  #text?: string;

  /** @throws AddressError unless `addressNoChecksum` is 33 bytes (v0) or 45 bytes (v1/v2). */
  constructor(addressNoChecksum: Uint8Array) {
    this.version = checkNoChecksum(addressNoChecksum, 'addressNoChecksum');
    this.addressNoChecksum = addressNoChecksum.slice();
  }

  /** Primary address of a serialized public key, or the address derived from it with `nonce` (§7.2, §7.3). */
  static fromPublicKey(publicKey: Uint8Array, nonce?: Uint8Array | null): Address {
    return new Address(deriveAddress(primaryAddressFromPublicKey(publicKey), nonce));
  }

  /**
   * The reference's construction from bytes (§7.5): 33/45 bytes without checksum; 36/48 bytes
   * with checksum (verified); 49…1023 bytes a public key. With a 16-byte `nonce` the result is the
   * address derived from that primary address (§7.3, as for `fromList` entries, §8.3).
   */
  static fromBytes(bytes: Uint8Array, nonce?: Uint8Array | null): Address {
    assertBytes(bytes, 'address bytes');
    const n = bytes.length;
    if (n === ADDRESS_V0_LENGTH || n === ADDRESS_V1_LENGTH) return new Address(deriveAddress(bytes, nonce));
    if (n === ADDRESS_V0_LENGTH + ADDRESS_CHECKSUM_LENGTH || n === ADDRESS_V1_LENGTH + ADDRESS_CHECKSUM_LENGTH) {
      return new Address(deriveAddress(parseAddressBytes(bytes), nonce));
    }
    if (n >= ADDRESS_KEY_MIN_LENGTH && n <= ADDRESS_KEY_MAX_LENGTH) return Address.fromPublicKey(bytes, nonce);
    throw new AddressError(
      `address bytes must be 33/45 (no checksum), 36/48 (with checksum) or a ${ADDRESS_KEY_MIN_LENGTH}…${ADDRESS_KEY_MAX_LENGTH}-byte public key, got ${n} bytes`,
    );
  }

  /** Parses plain Base58 address text. @throws AddressError with the reason. */
  static fromText(text: string): Address {
    return new Address(addressFromText(text));
  }

  /** The address derived from this (primary) address with a 16-byte nonce (§7.3). */
  derive(nonce: Uint8Array): Address {
    return new Address(deriveAddress(this.addressNoChecksum, nonce));
  }

  get addressWithChecksum(): Uint8Array {
    this.#withChecksum ??= concatBytes(this.addressNoChecksum, addressChecksum(this.addressNoChecksum));
    return this.#withChecksum.slice();
  }

  /** Base58 text (with checksum). */
  get base58Address(): string {
    this.#text ??= encodeBase58(this.addressWithChecksum);
    return this.#text;
  }

  get sectorPrefix(): Uint8Array {
    return sectorPrefix(this.addressNoChecksum);
  }

  equals(other: Address): boolean {
    return other instanceof Address && equalBytes(this.addressNoChecksum, other.addressNoChecksum);
  }

  toString(): string {
    return this.base58Address;
  }

  toJSON(): string {
    return this.base58Address;
  }
}

/**
 * Does `parse(text)` succeed? False when it throws an AddressError; other errors propagate.
 * @throws TypeError when `text` is not a string.
 */
export function parsesAsAddress(text: string, parse: (text: string) => unknown): boolean {
  if (typeof text !== 'string') throw new TypeError(`address must be a string, got ${describeType(text)}`);
  try {
    parse(text);
    return true;
  } catch (e) {
    if (e instanceof AddressError) return false;
    throw e;
  }
}

/**
 * Is `text` a plain address in Base58 whose checksum is right (the `validateAddress` RPC rule)?
 * Stricter than the reference's 36…48-byte rule (§7.6, §16.4): the length must match the version
 * byte (36 bytes v0, 48 bytes v1/v2). Never throws for a string; TypeError for other types.
 */
export const validateAddress = (text: string): boolean => parsesAsAddress(text, addressFromText);

/** Parses plain Base58 address text into an Address. @throws AddressError with the reason. */
export const parseAddress = (text: string): Address => Address.fromText(text);

let infiniMine: Uint8Array | undefined;
/**
 * The InfiniMine pseudo-address (§7.9) without checksum, the `pubKey` of the genesis transaction;
 * nobody holds its key. Decoded on first use: this module loads before the WASM core is set up.
 */
export const infiniMineAddress = (): Uint8Array => (infiniMine ??= addressFromText(INFINIMINE_ADDRESS));
