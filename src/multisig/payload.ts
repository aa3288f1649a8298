/**
 * The multisig payloads carried as the `data` of a multisig transaction's first output
 * (reference-formats.md §8.10; Ixian-Core `Transaction.cs` `AddMultisigOrig`,
 * `AddMultisigChWallet`, `AddMultisigChReqSigs`, `getMultisigTxData`,
 * `getChangeMultisigWalletData`):
 *
 * - 997 MultisigTX and 999 MultisigAddTxSignature (`MultisigTxData`):
 *   `IxiBytes(origTxId or empty) ‖ IxiBytes(signerPubKey) ‖ IxiBytes(signerNonce)`;
 * - 998 ChangeMultisigWallet, add or remove a signer (`MultisigAddrAdd`, `MultisigAddrDel`):
 *   `u8 1|2 ‖ IxiBytes(addressNoChecksum) ‖ IxiBytes(signerPubKey) ‖ IxiBytes(signerNonce)`;
 * - 998, change the required signatures (`MultisigChSig`):
 *   `u8 3 ‖ u8 requiredSigs ‖ IxiBytes(signerPubKey) ‖ IxiBytes(signerNonce)`.
 *
 * The reader keeps the reference's bounds (payload ≥ 6 bytes, origTxId ≤ 100 bytes, signer key
 * 36…2500 bytes, signer nonce ≤ 16 bytes, changed address 36…128 bytes) and is stricter where the
 * reference reads on regardless: a truncated field or trailing bytes are errors. The reference
 * writes the required-signature count as a varint and reads it as one byte; both agree below 248,
 * and this writer emits the byte the reader expects (counts up to 255).
 */
import { concatBytes } from '../formats/bytes.js';
import { decodeVarUintNumber, encodeVarBytes, encodeVarUint } from '../formats/varint.js';

/** Malformed multisig payload bytes: a RangeError naming the field and the byte offset. */
export class MultisigCodecError extends RangeError {
  override name = 'MultisigCodecError';
  readonly code = 'ERR_MULTISIG_CODEC';
}

/** `MultisigWalletChangeType` (reference `Transaction.cs`). */
export const MultisigChangeType = { AddSigner: 1, DelSigner: 2, ChangeReqSigs: 3 } as const;

/** Bounds of the reference reader. */
export const MULTISIG_PAYLOAD_MIN_BYTES = 6;
export const MAX_ORIG_TXID_BYTES = 100;
export const MIN_SIGNER_KEY_BYTES = 36;
export const MAX_SIGNER_KEY_BYTES = 2500;
export const MAX_SIGNER_NONCE_BYTES = 16;
export const MIN_CHANGED_ADDRESS_BYTES = 36;
export const MAX_CHANGED_ADDRESS_BYTES = 128;

/** Who signed: a key and the nonce that, with the key's primary address, gives the signer address (§7.3). */
export interface MultisigSigner {
  signerPubKey: Uint8Array;
  signerNonce: Uint8Array;
}

/** 997 (origTxId null: a spend) and 999 (origTxId: the binary txid it co-signs). */
export interface MultisigTxData extends MultisigSigner {
  origTxId: Uint8Array | null;
}

export type MultisigChange =
  | ({ kind: typeof MultisigChangeType.AddSigner | typeof MultisigChangeType.DelSigner; address: Uint8Array } & MultisigSigner)
  | ({ kind: typeof MultisigChangeType.ChangeReqSigs; requiredSigs: number } & MultisigSigner);

class Reader {
  private off = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  fail(field: string, reason: string): never {
    throw new MultisigCodecError(`${this.what}: ${field} at byte ${this.off}: ${reason}`);
  }

  u8(field: string): number {
    if (this.off >= this.bytes.length) this.fail(field, 'truncated (input ends)');
    return this.bytes[this.off++]!;
  }

  /** `varint(len) ‖ bytes` with `min ≤ len ≤ max`. */
  bytesField(field: string, min: number, max: number): Uint8Array {
    let len: number;
    let next: number;
    try {
      ({ value: len, next } = decodeVarUintNumber(this.bytes, this.off, Number.MAX_SAFE_INTEGER));
    } catch (err) {
      return this.fail(`${field} length`, (err as Error).message);
    }
    if (len < min || len > max) this.fail(`${field} length`, `${len} bytes, expected ${min}…${max}`);
    if (next + len > this.bytes.length) this.fail(field, `truncated: ${len} bytes announced, ${this.bytes.length - next} left`);
    this.off = next + len;
    return this.bytes.slice(next, next + len);
  }

  end(): void {
    if (this.off !== this.bytes.length) this.fail('end', `${this.bytes.length - this.off} trailing bytes`);
  }
}

function startReading(data: Uint8Array | null | undefined, what: string): Reader {
  if (!(data instanceof Uint8Array)) throw new MultisigCodecError(`${what}: the first output carries no data`);
  if (data.length < MULTISIG_PAYLOAD_MIN_BYTES) {
    throw new MultisigCodecError(`${what}: ${data.length} bytes, at least ${MULTISIG_PAYLOAD_MIN_BYTES} expected`);
  }
  return new Reader(data, what);
}

function readSigner(r: Reader): MultisigSigner {
  const signerPubKey = r.bytesField('signer public key', MIN_SIGNER_KEY_BYTES, MAX_SIGNER_KEY_BYTES);
  const signerNonce = r.bytesField('signer nonce', 0, MAX_SIGNER_NONCE_BYTES);
  return { signerPubKey, signerNonce };
}

/** Reads the payload of a 997 or 999. @throws MultisigCodecError */
export function decodeMultisigTxData(data: Uint8Array | null | undefined): MultisigTxData {
  const r = startReading(data, 'multisig payload');
  const orig = r.bytesField('origTxId', 0, MAX_ORIG_TXID_BYTES);
  const signer = readSigner(r);
  r.end();
  return { origTxId: orig.length > 0 ? orig : null, ...signer };
}

/** Reads the payload of a 998. @throws MultisigCodecError */
export function decodeMultisigChange(data: Uint8Array | null | undefined): MultisigChange {
  const r = startReading(data, 'multisig wallet change');
  const kind = r.u8('change type');
  let change: MultisigChange;
  if (kind === MultisigChangeType.AddSigner || kind === MultisigChangeType.DelSigner) {
    const address = r.bytesField('address', MIN_CHANGED_ADDRESS_BYTES, MAX_CHANGED_ADDRESS_BYTES);
    change = { kind, address, ...readSigner(r) };
  } else if (kind === MultisigChangeType.ChangeReqSigs) {
    const requiredSigs = r.u8('required signatures');
    change = { kind, requiredSigs, ...readSigner(r) };
  } else {
    return r.fail('change type', `${kind} is not 1 (add signer), 2 (remove signer) or 3 (change required signatures)`);
  }
  r.end();
  return change;
}

function checkLength(bytes: Uint8Array, field: string, min: number, max: number): void {
  if (!(bytes instanceof Uint8Array)) throw new MultisigCodecError(`${field} must be bytes`);
  if (bytes.length < min || bytes.length > max) throw new MultisigCodecError(`${field}: ${bytes.length} bytes, expected ${min}…${max}`);
}

function signerBytes(s: MultisigSigner): Uint8Array[] {
  checkLength(s.signerPubKey, 'signer public key', MIN_SIGNER_KEY_BYTES, MAX_SIGNER_KEY_BYTES);
  checkLength(s.signerNonce, 'signer nonce', 0, MAX_SIGNER_NONCE_BYTES);
  return [encodeVarUint(s.signerPubKey.length), s.signerPubKey, encodeVarUint(s.signerNonce.length), s.signerNonce];
}

/** The payload of a 997 (`origTxId` null) or 999. @throws MultisigCodecError for a field out of bounds. */
export function encodeMultisigTxData(d: MultisigTxData): Uint8Array {
  if (d.origTxId) checkLength(d.origTxId, 'origTxId', 1, MAX_ORIG_TXID_BYTES);
  return concatBytes(encodeVarBytes(d.origTxId), ...signerBytes(d));
}

/** The payload of a 998. @throws MultisigCodecError for a field out of bounds. */
export function encodeMultisigChange(c: MultisigChange): Uint8Array {
  if (c.kind === MultisigChangeType.ChangeReqSigs) {
    if (!Number.isInteger(c.requiredSigs) || c.requiredSigs < 0 || c.requiredSigs > 255) {
      throw new MultisigCodecError(`required signatures: ${c.requiredSigs} is not a byte (0…255)`);
    }
    return concatBytes(Uint8Array.of(c.kind, c.requiredSigs), ...signerBytes(c));
  }
  if (c.kind !== MultisigChangeType.AddSigner && c.kind !== MultisigChangeType.DelSigner) {
    throw new MultisigCodecError(`change type: ${String((c as { kind: unknown }).kind)} is not 1, 2 or 3`);
  }
  checkLength(c.address, 'address', MIN_CHANGED_ADDRESS_BYTES, MAX_CHANGED_ADDRESS_BYTES);
  return concatBytes(Uint8Array.of(c.kind), encodeVarUint(c.address.length), c.address, ...signerBytes(c));
}
