/**
 * Block signature entries between the chain's stored form (src/chain/block.ts `BlockSignature`:
 * signer field, SignerPowSolution bytes, RSA signature) and the rules (reference-network §5.2,
 * formats §10.3 row 12, §12): parse one, make one, verify one (signer PoW + RSA on this thread),
 * and the tally the rules compare. A whole block's entries: {@link verifyBlockSignatureEntries}
 * (the signer PoW of each on the calling thread's WASM core, the RSA signatures in one call to a
 * verifier such as the worker pool's `verifyRsa` task).
 */
import type { BlockSignature } from '../chain/block.js';
import type { CoreAccess } from '../core/blake2b.js';
import { signBytes, verifySignature } from '../formats/rsa.js';
import type { KeyObject } from 'node:crypto';
import { ConsensusError } from './errors.js';
import { signatureDifficulty, type ChecksumEntry, type FreezeEntry, type SignatureTally } from './rules.js';
import {
  blockSignatureDigest, decodeSignerPowSolution, encodeSignerPowSolution, signerAddressOf, verifySignerPow,
  type SignerPowRejection, type SignerPowSolution,
} from './signer-pow.js';

/** A stored signature entry, parsed. */
export interface ParsedBlockSignature {
  /** Signer addressNoChecksum (from the address or the public key in the signer field). */
  address: Uint8Array;
  /** The signer field as stored (an address, or a key for old blocks). */
  signerField: Uint8Array;
  solution: SignerPowSolution | null;
  signature: Uint8Array | null;
}

/**
 * Parses a stored entry.
 * @throws ConsensusError ERR_SIGNER_POW_DECODE for unparseable solution bytes, ERR_CONSENSUS_INPUT
 *   for a signer field that is neither an address nor a public key.
 */
export function parseBlockSignature(sig: BlockSignature): ParsedBlockSignature {
  const address = signerAddressOf(sig.signer);
  if (address === null) throw new ConsensusError('ERR_CONSENSUS_INPUT', `signature signer field of ${sig.signer.length} bytes is neither an address nor a public key`);
  return {
    address,
    signerField: sig.signer,
    solution: sig.powSolution === null ? null : decodeSignerPowSolution(sig.powSolution),
    signature: sig.signature,
  };
}

/**
 * A master's signature of a block it fully verified (§5.2): the entry names its address, carries
 * its solution, and signs `sha3_512sq(blockChecksum ‖ solution)` with the solution's private key.
 */
export function makeBlockSignature(
  blockChecksum: Uint8Array,
  signerAddress: Uint8Array,
  solution: SignerPowSolution,
  signingPrivateKey: KeyObject | Uint8Array,
): BlockSignature {
  return {
    signer: signerAddress.slice(),
    powSolution: encodeSignerPowSolution(solution),
    signature: signBytes(signingPrivateKey, blockSignatureDigest(blockChecksum, solution.solution)),
  };
}

/** Why a signature does not count ('decode': the entry does not parse, see {@link parseBlockSignature}). */
export type BlockSignatureRejection = SignerPowRejection | 'no-solution' | 'no-signature' | 'rsa' | 'decode';

/** What {@link verifyBlockSignatureEntry} checks one entry against. */
export interface BlockSignatureCheck {
  entry: ParsedBlockSignature;
  /** The signed block. */
  blockNum: bigint;
  blockVersion: number;
  blockChecksum: Uint8Array;
  /** Checksum of block `entry.solution.blockNum` from the local chain (null if unknown → rejected as window). */
  solutionBlockChecksum: Uint8Array | null;
  /** Minimum difficulty of one signature (rules `minSignerPowDifficulty`). */
  minDifficulty: bigint;
}

/**
 * Verifies one v10+ signature entry (`Block.verifySignature`): a solution for a block strictly
 * below and inside the validity window, difficulty ≥ the minimum, and an RSA signature by the
 * solution's key over `sha3_512sq(blockChecksum ‖ solution)`. Returns the solution's difficulty.
 */
export function verifyBlockSignatureEntry(
  c: BlockSignatureCheck,
  core?: CoreAccess,
): { ok: true; difficulty: bigint } | { ok: false; reason: BlockSignatureRejection } {
  const pow = checkEntryPow(c, core);
  if (!pow.ok) return pow;
  if (!verifySignature(pow.rsa.publicKey, pow.rsa.data, pow.rsa.signature)) return { ok: false, reason: 'rsa' };
  return { ok: true, difficulty: pow.difficulty };
}

/** The RSA check left after the PoW check: key, signed digest, signature (the pool's `verifyRsa` item). */
export interface EntryRsaCheck {
  publicKey: Uint8Array;
  data: Uint8Array;
  signature: Uint8Array;
}

/** Everything of {@link verifyBlockSignatureEntry} but the RSA verification, which it returns as an item. */
function checkEntryPow(
  c: BlockSignatureCheck,
  core?: CoreAccess,
): { ok: true; difficulty: bigint; rsa: EntryRsaCheck } | { ok: false; reason: BlockSignatureRejection } {
  const { entry } = c;
  if (entry.solution === null) return { ok: false, reason: 'no-solution' };
  if (entry.signature === null) return { ok: false, reason: 'no-signature' };
  if (c.solutionBlockChecksum === null) return { ok: false, reason: 'window' };
  const pow = verifySignerPow(
    {
      solution: entry.solution, solutionBlockChecksum: c.solutionBlockChecksum, recipientAddress: entry.address,
      signedBlockNum: c.blockNum, signedBlockVersion: c.blockVersion, minDifficulty: c.minDifficulty,
    },
    core,
  );
  if (!pow.ok) return { ok: false, reason: pow.reason! };
  const data = blockSignatureDigest(c.blockChecksum, entry.solution.solution);
  return { ok: true, difficulty: pow.difficulty, rsa: { publicKey: entry.solution.signingPubKey, data, signature: entry.signature } };
}

/** One entry's outcome in {@link verifyBlockSignatureEntries}, in the order of the entries. */
export type BlockSignatureVerdict =
  | { ok: true; entry: ParsedBlockSignature; difficulty: bigint }
  /** `entry` is null when the stored entry does not parse ('decode'). */
  | { ok: false; entry: ParsedBlockSignature | null; reason: BlockSignatureRejection };

/** What {@link verifyBlockSignatureEntries} checks a block's entries against. */
export interface BlockSignaturesCheck {
  /** The block's signature entries as stored (src/chain/block.ts). */
  entries: readonly BlockSignature[];
  blockNum: bigint;
  blockVersion: number;
  blockChecksum: Uint8Array;
  /** Checksum of a block of the local chain (the solutions' blocks), or null when unknown. */
  solutionBlockChecksum: (blockNum: bigint) => Uint8Array | null;
  /** Minimum difficulty of one signature (rules `minSignerPowDifficulty`). */
  minDifficulty: bigint;
  /** RSA-SHA512 PKCS#1 v1.5 verification of many items at once: the worker pool's `verifyRsa` task. */
  verifyRsa: (items: readonly EntryRsaCheck[]) => Promise<boolean[]>;
}

/**
 * Entries checked per slice of {@link verifyBlockSignatureEntries}: ~64 × 30–50 µs of PoW checks
 * (a few ms) between yields to the event loop, and one `verifyRsa` task's worth of signatures.
 */
export const SIGNATURE_ENTRIES_PER_SLICE = 64;

/**
 * Verifies every v10+ signature entry of a block (`Block.verifySignatures`, §5.2): per entry the
 * signer PoW (parse, window, WASM hash, difficulty) on this thread, and the RSA signatures of the
 * entries that passed through `verifyRsa` (the pool's workers). It works in slices of
 * {@link SIGNATURE_ENTRIES_PER_SLICE}: a slice's signatures go to `verifyRsa` while the next
 * slice's PoW is checked, and the event loop runs between slices. Returns one verdict per entry,
 * in order; a malformed entry is a verdict ('decode'), never a throw. Duplicate signers are the
 * caller's matter ({@link addSignatures}).
 * @throws what `verifyRsa` throws (e.g. PoolBusyError when the pool's queue is full).
 */
export async function verifyBlockSignatureEntries(c: BlockSignaturesCheck, core?: CoreAccess): Promise<BlockSignatureVerdict[]> {
  const verdicts: BlockSignatureVerdict[] = [];
  const pending: Promise<void>[] = [];
  // The first verifier failure, kept by a handler attached at once (no unhandled rejection while we yield).
  let failure: { error: unknown } | null = null;
  let rsa: { at: number; item: EntryRsaCheck }[] = [];
  const sendRsa = (): void => {
    if (rsa.length === 0) return;
    const slice = rsa;
    rsa = [];
    pending.push(c.verifyRsa(slice.map((r) => r.item)).then(
      (valid) => slice.forEach((r, i) => {
        if (valid[i] !== true) verdicts[r.at] = { ok: false, entry: verdicts[r.at]!.entry, reason: 'rsa' };
      }),
      (error: unknown) => void (failure ??= { error }),
    ));
  };
  for (const stored of c.entries) {
    if (verdicts.length > 0 && verdicts.length % SIGNATURE_ENTRIES_PER_SLICE === 0) {
      sendRsa();
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (failure) break;
    }
    let entry: ParsedBlockSignature;
    try {
      entry = parseBlockSignature(stored);
    } catch (e) {
      if (!(e instanceof ConsensusError)) throw e;
      verdicts.push({ ok: false, entry: null, reason: 'decode' });
      continue;
    }
    const check: BlockSignatureCheck = {
      entry, blockNum: c.blockNum, blockVersion: c.blockVersion, blockChecksum: c.blockChecksum, minDifficulty: c.minDifficulty,
      solutionBlockChecksum: entry.solution ? c.solutionBlockChecksum(entry.solution.blockNum) : null,
    };
    let pow: ReturnType<typeof checkEntryPow>;
    try {
      pow = checkEntryPow(check, core);
    } catch (e) {
      // A solution block whose checksum is not 64 bytes (only pre-v10 blocks): nothing to count.
      if (!(e instanceof RangeError)) throw e;
      pow = { ok: false, reason: 'window' };
    }
    if (!pow.ok) {
      verdicts.push({ ok: false, entry, reason: pow.reason });
      continue;
    }
    rsa.push({ at: verdicts.length, item: pow.rsa });
    verdicts.push({ ok: true, entry, difficulty: pow.difficulty });
  }
  if (!failure) sendRsa();
  await Promise.all(pending);
  if (failure) throw (failure as { error: unknown }).error;
  return verdicts;
}

/** A verified signature with its difficulty: what the freeze, the tally and the rewards use. */
export interface VerifiedSignature extends FreezeEntry, ChecksumEntry {
  entry: ParsedBlockSignature;
}

/** The verified entry as the rules see it (signature without a solution: difficulty 1 coin). */
export function verifiedSignature(entry: ParsedBlockSignature, difficulty: bigint | null): VerifiedSignature {
  return {
    entry,
    address: entry.address,
    difficulty: signatureDifficulty(difficulty),
    solution: entry.solution,
    ...(entry.signerField.length > 45 ? { signerKey: entry.signerField } : {}),
  };
}

/**
 * The difficulty of an entry of a stored signature row for block `signed` (the row holds verified
 * entries, so only its solution's hash is computed, no RSA): the reference's
 * `powSolution.difficulty`. Null for an entry without a solution; 0 for an unreadable one or one
 * whose solution block `checksumOf` does not know.
 */
export function storedEntryDifficulty(
  sig: BlockSignature,
  signed: { num: bigint; version: number },
  checksumOf: (blockNum: bigint) => Uint8Array | null | undefined,
): bigint | null {
  let entry: ParsedBlockSignature;
  try {
    entry = parseBlockSignature(sig);
  } catch {
    return 0n;
  }
  if (!entry.solution) return null;
  const solutionBlockChecksum = checksumOf(entry.solution.blockNum);
  if (!solutionBlockChecksum) return 0n;
  try {
    return verifySignerPow({
      solution: entry.solution, solutionBlockChecksum, recipientAddress: entry.address,
      signedBlockNum: signed.num, signedBlockVersion: signed.version, minDifficulty: 0n,
    }).difficulty;
  } catch {
    return 0n;
  }
}

/** Count and total difficulty of a list (`getFrozenSignatureCount`, `getTotalSignerDifficulty`). */
export function tallySignatures(list: readonly FreezeEntry[]): SignatureTally {
  let totalDifficulty = 0n;
  for (const s of list) totalDifficulty += s.difficulty;
  return { count: list.length, totalDifficulty };
}

/**
 * Adds signatures one by one as `Block.addSignature` does (§5.2): one per signer address; a new
 * one from an address already present replaces it only with a higher difficulty, and then moves
 * to the end of the list (the reference removes the old entry and appends the new one).
 */
export function addSignatures<T extends FreezeEntry>(list: readonly T[], incoming: readonly T[]): T[] {
  const out = [...list];
  for (const s of incoming) {
    const i = out.findIndex((x) => x.address.length === s.address.length && x.address.every((b, k) => b === s.address[k]));
    if (i === -1) out.push(s);
    else if (s.difficulty > out[i]!.difficulty) {
      out.splice(i, 1);
      out.push(s);
    }
  }
  return out;
}
