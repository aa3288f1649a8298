/**
 * Name ids and record-key ids (reference-names.md §2.1, §2.2).
 *
 * id(name) = for each label, top-level first: `40 ‖ SHA3-512²(lock ‖ label)`, where the labels are
 * the lower-cased, IDN-to-ASCII form of the name and `lock` is the network's checksum lock. The id
 * of `sub.top` therefore starts with the id of `top`.
 */
import { domainToASCII } from 'node:url';
import { sha3_512sq } from '../core/hash.js';
import { MAX_NAME_ID_LENGTH } from './params.js';

/** Bytes of one id section: the `40` length prefix and a 64-byte label hash. */
export const SECTION_LENGTH = 65;
const LABEL_HASH_LENGTH = 64;
/** Bytes of a record-key id (§2.2: one SHA3-512² hash, no prefix). */
export const RECORD_KEY_ID_LENGTH = 64;
/** DNS limits enforced by the reference's IDN mapping (§2.1 "IDN detail"). */
const MAX_LABEL_LENGTH = 63;
const MAX_DOMAIN_LENGTH = 253;
/** The only record key allowed on names that allow subnames: the raw byte `40` ("@", §2.2, §5.4). */
export const AT_RECORD_KEY: Uint8Array = Uint8Array.of(0x40);

const utf8 = new TextEncoder();
/** A letter label appended while IDNA-mapping a name, so the mapping never parses it as IPv4. */
const IDNA_GUARD_LABEL = 'x';
/** The ACE prefix of a punycode label (RFC 3490), decoded and checked by IDNA. */
const PUNYCODE_PREFIX = 'xn--';
/** Labels a name may have: its id (one 65-byte section per label) holds at most 256 bytes (§2.1). */
export const MAX_NAME_LABELS = Math.floor(MAX_NAME_ID_LENGTH / SECTION_LENGTH);

/**
 * ASCII characters the WHATWG host parser behind `domainToASCII` refuses although the reference's
 * IDN mapping passes them (STD3 rules off, §2.1): a label holding one is taken as typed.
 */
const HOST_FORBIDDEN = /[ #%/:<>?@[\\\]^|]/;

/**
 * The ASCII labels of a name in written order: lower-cased (locale-independent, one code point at
 * a time); labels with
 * non-ASCII characters, and `xn--` labels, go through IDNA (UTS-46) as the reference's
 * `IdnMapping.GetAscii` does (§2.1): the former mapped to punycode, the latter refused unless they
 * are valid punycode. STD3 rules are off (`_`, `@`, `*`, space, `:` pass in ASCII labels).
 * @throws TypeError if `name` is not a string; RangeError for an empty name, control characters,
 *   an empty label (also a trailing dot), a label over 63 bytes, a name over 253 bytes, a label
 *   starting or ending with `-`, an `xn--` label that is not valid punycode, a non-ASCII label
 *   holding one of `@ :#%/<>?[\]^|` or a space, or a label IDNA rejects.
 */
export function nameLabels(name: string): string[] {
  if (typeof name !== 'string') throw new TypeError(`name: expected a string, got ${typeof name}`);
  if (name.length === 0) throw new RangeError('name: expected a non-empty name');
  const lower = simpleLowerCase(name);
  // .NET refuses these itself before the IDN mapping (STD3 rules off let them through it).
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(lower)) throw new RangeError(`name ${JSON.stringify(name)}: control characters are not allowed`);
  const labels = lower.split('.').flatMap((part) => idnaLabels(name, part));
  const ascii = labels.join('.');
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    throw new RangeError(`name "${name}": expected at most ${MAX_DOMAIN_LENGTH} characters, got ${ascii.length}`);
  }
  for (const label of labels) {
    if (label.length === 0) throw new RangeError(`name "${name}": empty label (leading, trailing or double dot)`);
    if (label.length > MAX_LABEL_LENGTH) {
      throw new RangeError(`name "${name}": label "${label}" is ${label.length} characters, at most ${MAX_LABEL_LENGTH} allowed`);
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      throw new RangeError(`name "${name}": label "${label}" must not start or end with a hyphen`);
    }
  }
  return labels;
}

/**
 * Lower case one code point at a time, as .NET's `ToLower` does (simple case mapping): the whole
 * string's `toLowerCase` applies the final-sigma rule, so `ΟΔΟΣ` became `οδος`, a name IDNA keeps
 * apart from the reference's `οδοσ`.
 */
function simpleLowerCase(name: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(name)) return name.toLowerCase();
  let out = '';
  for (const c of name) out += c.toLowerCase();
  return out;
}

/** One dot-separated part of a lower-cased name as ASCII labels (a full-width dot may split it). */
function idnaLabels(name: string, part: string): string[] {
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(part);
  if (ascii && !part.startsWith(PUNYCODE_PREFIX)) return [part];
  const invalid = ascii ? `label "${part}" is not valid punycode` : `label "${part}" is not a valid internationalised domain name`;
  // The WHATWG parser refuses these outright; such a label is refused rather than hashed unchecked.
  if (HOST_FORBIDDEN.test(part)) throw new RangeError(`name "${name}": ${invalid}${ascii ? '' : ' (@, space, : and the like are allowed in ASCII labels only)'}`);
  // A WHATWG host whose last label is a number is parsed as an IPv4 address ("１２３" would become
  // "0.0.0.123"); the IDNA mapping alone is wanted ("１２３" → "123"), so the mapping runs with a
  // letter label appended, which no IPv4 parse accepts, and that label is taken off again.
  const mapped = domainToASCII(`${part}.${IDNA_GUARD_LABEL}`);
  if (!mapped.endsWith(`.${IDNA_GUARD_LABEL}`) || mapped.length === IDNA_GUARD_LABEL.length + 1) throw new RangeError(`name "${name}": ${invalid}`);
  return mapped.slice(0, -IDNA_GUARD_LABEL.length - 1).split('.');
}

/** The lock bytes: a string is taken as UTF-8 (`Ixian`, `IxiTest`, `IxiReg`, reference-formats.md §8.5). */
const lockBytes = (lock: string | Uint8Array): Uint8Array => (typeof lock === 'string' ? utf8.encode(lock) : lock);

/**
 * The name id of `name` on the network whose checksum lock is `lock` (§2.1).
 * @example nameId('test', 'IxiTest') // 65 bytes 40 9be670f2…
 * @throws as {@link nameLabels}; RangeError for more than {@link MAX_NAME_LABELS} labels
 */
export function nameId(name: string, lock: string | Uint8Array): Uint8Array {
  const labels = nameLabels(name);
  if (labels.length > MAX_NAME_LABELS) {
    throw new RangeError(
      `name "${name}": a name has at most ${MAX_NAME_LABELS} labels (its id holds at most ${MAX_NAME_ID_LENGTH} bytes), got ${labels.length}`,
    );
  }
  return labelsId(labels.reverse(), lock);
}

/** The id sections of `labels`, in the given order (top-level first for a name). */
function labelsId(labels: string[], lock: string | Uint8Array): Uint8Array {
  const lockB = lockBytes(lock);
  const id = new Uint8Array(labels.length * SECTION_LENGTH);
  labels.forEach((label, i) => {
    const l = utf8.encode(label);
    const pre = new Uint8Array(lockB.length + l.length);
    pre.set(lockB, 0);
    pre.set(l, lockB.length);
    id[i * SECTION_LENGTH] = LABEL_HASH_LENGTH;
    id.set(sha3_512sq(pre), i * SECTION_LENGTH + 1);
  });
  return id;
}

/**
 * The sections of a name id: each a length byte L (1…247) and L bytes (§2.1 "Constraints").
 * @throws RangeError for an empty id, an id over 256 bytes, an empty or truncated section.
 */
export function idSections(id: Uint8Array): Uint8Array[] {
  if (id.length === 0 || id.length > MAX_NAME_ID_LENGTH) {
    throw new RangeError(`name id: expected 1…${MAX_NAME_ID_LENGTH} bytes, got ${id.length}`);
  }
  const sections: Uint8Array[] = [];
  for (let off = 0; off < id.length; ) {
    const len = id[off]!;
    if (len === 0 || len >= 0xf8) throw new RangeError(`name id: section at byte ${off} has invalid length byte 0x${len.toString(16)}`);
    if (off + 1 + len > id.length) throw new RangeError(`name id: section at byte ${off} is truncated`);
    sections.push(id.subarray(off, off + 1 + len));
    off += 1 + len;
  }
  return sections;
}

/** The id of the top name of `id` (its first section), or `id` itself for a top name. */
export function topNameId(id: Uint8Array): Uint8Array {
  return idSections(id)[0]!;
}

/**
 * The record-key id of `key` on the name `id` (§2.2): `SHA3-512²(nameId ‖ nameId(key))`, 64 bytes.
 * @throws as {@link nameLabels} for an invalid key
 */
export function recordKeyId(id: Uint8Array, key: string, lock: string | Uint8Array): Uint8Array {
  // A key is hashed into the record-key id whatever its length: the label limit of names does not apply.
  const keyId = labelsId(nameLabels(key).reverse(), lock);
  const pre = new Uint8Array(id.length + keyId.length);
  pre.set(id, 0);
  pre.set(keyId, id.length);
  return sha3_512sq(pre);
}
