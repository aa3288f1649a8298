/**
 * Mining claims as a chain extension (src/chain/extensions.ts; reference-formats.md §11.3): the
 * type-1 hook checks a claim against the committed chain (target block stored, inside the claim
 * window, its PoW field still empty, Argon2 below argon2ExpirationBlockHeight, the solution valid
 * for the block's own difficulty and the claimant's address), and applying it sets the block's PoW
 * field. One block may apply several distinct solutions (solver, nonce) for the same target; the
 * same solution twice is refused (DLT `applyPowTransaction`). The reward is not paid then: block
 * m + rewardMaturity pays the claims of block m (src/mining/payout.ts, DLT `rewardMinersV10`).
 *
 * It also gives the mining difficulty every block must carry (src/mining/difficulty.ts; a reg
 * network may fix it from block 2 on, `--mining-difficulty`).
 *
 * The Argon2 check (~2 MiB, a few ms) is the hook's `prepare`: it runs in the worker pool, after
 * the mempool verified the claim's signature (so a forged claim costs one RSA verification, not an
 * Argon2 hash) and before a block's transition; `validate` and `apply` read its remembered verdict.
 */
import { blockChecksum, decodeStoredHeader } from '../chain/block.js';
import { TxError, TxErrorCode } from '../chain/errors.js';
import type { BlockWriter, ChainExtension, TxView } from '../chain/extensions.js';
import type { Transaction } from '../codec/types.js';
import { signerAddressOf } from '../consensus/signer-pow.js';
import type { PowClaim } from '../core/pow.js';
import { addressWithChecksum } from '../formats/address.js';
import { concatBytes, equalBytes } from '../formats/bytes.js';
import { binaryTransactionId, transactionChecksum } from '../codec/transaction.js';
import { BLOCK_VERSION_V10, REDACTED_WINDOW, REWARD_MATURITY } from '../formats/constants.js';
import { latin1Key, u64Key } from '../state/keys.js';
import { decodeClaimData, INFINIMINE, ClaimDataError } from './claim.js';
import { lowestClaimable } from './index.js';
import { countSolved, POW_FIELD_DB, powFieldOf, recordSolvedIn, setPowField, SOLVED_IN_DB, solvedIn } from './pow-field.js';
import { HASHRATE_BLOCKS, MIN_MINING_DIFFICULTY, nextMiningDifficulty } from './difficulty.js';
import { ARGON2_EXPIRATION_BLOCK_HEIGHT } from './reward.js';
import { CLAIMS_IN_DB, PAYOUT_DB, payMatureClaims, recordClaimsIn, solutionKey, type AppliedClaim } from './payout.js';

/** Claim verdicts remembered (a claim is checked on admission and again in its block). */
const MAX_VERDICTS = 4096;

const rule = (message: string): never => {
  throw new TxError(TxErrorCode.TypeRule, message);
};

export interface MiningExtensionDeps {
  /**
   * Argon2id verification on the calling thread (core `powVerify`; a fake in unit tests): only for
   * a claim whose verdict `prepare` did not leave (a pool that failed, a verdict evicted).
   */
  verify(claim: PowClaim): boolean;
  /** The same verification in the worker pool (`pool.verifyPow`), used by `prepare`; absent: `verify`. */
  verifyInPool?(claims: readonly PowClaim[]): Promise<boolean[]>;
  /**
   * reg only (`--mining-difficulty`): the difficulty of every block from block 2 on, instead of the
   * reference's computation; every node of the network must be given the same value.
   */
  fixedDifficulty?: bigint;
  /** Blocks between a claim's block and the one that pays it (default the reference's 960; a genesis file may shorten it). */
  rewardMaturity?: bigint;
}

/** The solutions applied so far in the block being applied: solved block → solution keys ({@link solutionKey}). */
type ClaimedInBlock = Map<string, Set<string>>;

/** The difficulty the block at `view.height` must carry (reference `calculateDifficulty_v4`). */
export function miningDifficultyAt(view: TxView): bigint {
  const tip = view.height - 1n;
  const tipBlock = tip >= 1n ? storedBlock(view, tip) : null;
  if (!tipBlock) return MIN_MINING_DIFFICULTY;
  const from = tip > BigInt(REDACTED_WINDOW) ? tip - BigInt(REDACTED_WINDOW) + 1n : 1n;
  const recentlySolved: bigint[] = [];
  for (let n = tip; n > tip - BigInt(HASHRATE_BLOCKS) && n >= 1n; n--) recentlySolved.push(...solvedIn(view.store, n));
  return nextMiningDifficulty({ tip, tipDifficulty: tipBlock.difficulty, solved: countSolved(view.store, from, tip), recentlySolved });
}

/** A block's checksum, version and difficulty read from the store. */
function storedBlock(view: TxView, num: bigint): { checksum: Uint8Array; version: number; difficulty: bigint } | null {
  const bytes = view.store.db('blocks').getBinary(u64Key(num));
  if (!bytes) return null;
  const { block, headerLength } = decodeStoredHeader(bytes, view.superBlockPeriod);
  return { checksum: blockChecksum(bytes.subarray(0, headerLength)), version: block.version, difficulty: block.difficulty };
}

/** What a valid claim names: the solved block and the solver. */
export interface CheckedClaim {
  blockNum: bigint;
  solver: Uint8Array;
  nonce: Uint8Array;
}

/**
 * The rules of §11.3 for a claim entering block `view.height` (tip = height − 1), but for the
 * proof of work itself: what to verify for it.
 * @throws TxError TX_TYPE_RULE naming the broken rule.
 */
function claimTarget(tx: Transaction, view: TxView, claimedInBlock?: ClaimedInBlock): CheckedClaim & { pow: PowClaim } {
  if (tx.outputs.length !== 1) rule(`a mining claim has exactly one output (to InfiniMine), got ${tx.outputs.length}`);
  const out = tx.outputs[0]!;
  if (!equalBytes(out.address, INFINIMINE)) rule('a mining claim pays its one output to the InfiniMine address');
  if (out.amount !== 0n) rule('a mining claim moves no coins (output amount 0)');
  if (tx.inputs.some((i) => i.amount !== 0n)) rule('a mining claim moves no coins (input amount 0)');
  let data;
  try {
    data = decodeClaimData(out.data);
  } catch (err) {
    return rule((err as ClaimDataError).message);
  }
  const tip = view.height - 1n;
  if (tip >= ARGON2_EXPIRATION_BLOCK_HEIGHT) rule(`Argon2 mining ended at block ${ARGON2_EXPIRATION_BLOCK_HEIGHT}`);
  if (data.blockNum < 1n || data.blockNum > tip) rule(`claim for block ${data.blockNum}, which is not stored (the tip is ${tip})`);
  if (data.blockNum < lowestClaimable(tip)) rule(`claim for block ${data.blockNum} is outside the claim window (lowest claimable ${lowestClaimable(tip)})`);
  // The PoW field is set by the first claim this block applied for the target: further distinct solutions still join it.
  const sameBlock = claimedInBlock?.get(String(data.blockNum));
  if (!sameBlock && powFieldOf(view.store, data.blockNum)) rule(`block ${data.blockNum} is already solved: its PoW field is set`);
  const solver = tx.pubKey ? signerAddressOf(tx.pubKey) : null;
  if (!solver) rule('a mining claim names no solver (pubKey)');
  if (sameBlock?.has(solutionKey(solver!, data.nonce))) rule(`the same solution (solver and nonce) for block ${data.blockNum} is already in this block`);
  const target = storedBlock(view, data.blockNum)!;
  const solverAddress = target.version >= BLOCK_VERSION_V10 ? solver! : addressWithChecksum(solver!);
  const pow = { blockChecksum: target.checksum, solverAddress, nonce: data.nonce, difficulty: target.difficulty, blockVersion: target.version };
  return { blockNum: data.blockNum, solver: solver!, nonce: data.nonce, pow };
}

/**
 * The rules of §11.3 for a claim entering block `view.height` (tip = height − 1).
 * @throws TxError TX_TYPE_RULE naming the broken rule.
 */
export function checkClaim(tx: Transaction, view: TxView, verify: (c: PowClaim) => boolean, claimedInBlock?: ClaimedInBlock): CheckedClaim {
  const { blockNum, solver, nonce, pow } = claimTarget(tx, view, claimedInBlock);
  let ok = false;
  try {
    ok = verify(pow);
  } catch {
    ok = false;
  }
  if (!ok) rule(`the nonce does not solve block ${blockNum} at its difficulty ${pow.difficulty} for its solver`);
  return { blockNum, solver, nonce };
}

export function createMiningExtension(deps: MiningExtensionDeps): ChainExtension {
  // One Argon2 verification per claim (prepared on admission, then read by validate and by apply
  // in a block): the verdict depends only on the claim and its stored target block.
  const verdicts = new Map<string, boolean>();
  const keyOf = (c: PowClaim): string => latin1Key(concatBytes(c.blockChecksum, c.solverAddress, c.nonce));
  const remember = (key: string, v: boolean): void => {
    if (verdicts.size >= MAX_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(key, v);
  };
  const verify = (c: PowClaim): boolean => {
    const key = keyOf(c);
    let v = verdicts.get(key);
    if (v === undefined) remember(key, (v = deps.verify(c)));
    return v;
  };
  const inPool = deps.verifyInPool;
  const maturity = deps.rewardMaturity ?? BigInt(REWARD_MATURITY);
  return {
    name: 'mining',
    subDatabases: [POW_FIELD_DB, SOLVED_IN_DB, CLAIMS_IN_DB, PAYOUT_DB],
    miningDifficulty: (view) => (deps.fixedDifficulty !== undefined && view.height >= 2n ? deps.fixedDifficulty : miningDifficultyAt(view)),
    onBlock(block) {
      const solved = block.local<bigint[]>('mining.solvedDifficulties', () => []);
      if (solved.length > 0) recordSolvedIn(block.store, block.height, solved);
      const applied = block.local<AppliedClaim[]>('mining.applied', () => []);
      if (applied.length > 0) recordClaimsIn(block.store, block.height, applied);
      payMatureClaims(block, maturity, (n) => storedBlock(block, n)?.version ?? null);
    },
    txTypes: {
      1: {
        async prepare(tx, view) {
          if (!inPool) return;
          let pow: PowClaim;
          try {
            pow = claimTarget(tx, view).pow;
          } catch {
            return; // a broken rule: `validate` names it, no hashing needed
          }
          const key = keyOf(pow);
          if (verdicts.has(key)) return;
          let ok: boolean[];
          try {
            ok = await inPool([pow]);
          } catch (err) {
            throw new TxError(TxErrorCode.TypeRule, `the claim's proof of work cannot be checked now (${(err as Error).message}); submit it again later`);
          }
          remember(key, ok[0] === true);
        },
        validate(tx, view) {
          // Inside a block (a BlockWriter): the solutions its earlier claims applied.
          const claimed = 'local' in view ? (view as BlockWriter).local<ClaimedInBlock>('mining.claimed', () => new Map()) : undefined;
          checkClaim(tx, view, verify, claimed);
        },
        apply(tx, block) {
          const claimed = block.local<ClaimedInBlock>('mining.claimed', () => new Map());
          const c = checkClaim(tx, block, verify, claimed);
          const txid = binaryTransactionId(tx, transactionChecksum(tx, block.network));
          const target = String(c.blockNum);
          let solutions = claimed.get(target);
          if (!solutions) {
            // The first solution of this block for the target solves it (counted once however many share it).
            claimed.set(target, (solutions = new Set()));
            block.local<bigint[]>('mining.solvedDifficulties', () => []).push(storedBlock(block, c.blockNum)!.difficulty);
            setPowField(block.store, c.blockNum, txid);
          }
          solutions.add(solutionKey(c.solver, c.nonce));
          // Paid rewardMaturity blocks later (onBlock of that block).
          block.local<AppliedClaim[]>('mining.applied', () => []).push({ target: c.blockNum, solver: c.solver, txid });
        },
      },
    },
  };
}
