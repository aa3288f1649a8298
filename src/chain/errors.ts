/**
 * Errors of the chain and the mempool, with stable codes (lodestar's `BlockErrorCode` and
 * `GossipAction`; the project's practice P54): the code says what broke, `context` carries the
 * values, `action` tells the network whether the peer that sent it is to blame (REJECT) or merely
 * saw another state (IGNORE). The message is the person-readable sentence; `rpc/errors.ts` maps
 * codes to JSON-RPC codes and the exact interface.md texts in one table.
 */

/** What a peer that sent the object deserves (reshape-for-peers §3 P4). */
export const GossipAction = {
  /** Our view may differ (balance, already known): drop it, do not penalise. */
  Ignore: 'IGNORE',
  /** The object is invalid whatever the state: drop it and score the peer. */
  Reject: 'REJECT',
} as const;
export type GossipAction = (typeof GossipAction)[keyof typeof GossipAction];

export const TxErrorCode = {
  /** interface.md §Errors: "Balance is too low". */
  BalanceTooLow: 'TX_BALANCE_TOO_LOW',
  AlreadyPending: 'TX_ALREADY_PENDING',
  AlreadyApplied: 'TX_ALREADY_APPLIED',
  BadSignature: 'TX_BAD_SIGNATURE',
  PoolFull: 'TX_POOL_FULL',
  /** A rule of reference-formats §8.3/§8.8–§8.11 (version, type, size, amounts, fee, window…). */
  Invalid: 'TX_INVALID',
  /** The signer's key cannot be resolved (§8.8). */
  UnknownSigner: 'TX_UNKNOWN_SIGNER',
  /**
   * Its blockHeight is more than 10 blocks above this node's tip (§8.3): valid once the node gets
   * there. A node behind the network (synchronizing, reference-network §6) sees every fresh
   * transaction so, so its sender is not to blame.
   */
  AheadOfTip: 'TX_AHEAD_OF_TIP',
  /** A type hook (e.g. the name system, type 4) refused it; the message names the rule. */
  TypeRule: 'TX_TYPE_RULE',
  /** A payment the node cannot build: bad amounts, fee below the minimum, from/to mismatch. */
  BadPayment: 'TX_BAD_PAYMENT',
  /** The payment builder's fee did not settle (a retry usually succeeds). */
  FeeUnsettled: 'TX_FEE_UNSETTLED',
  /**
   * Valid, but it cannot enter this block yet: a multisig transaction still collecting
   * co-signatures, or a co-signature whose transaction is not in the block. It stays pending.
   */
  NotReady: 'TX_NOT_READY',
  /**
   * Valid against the committed state, but a transaction already pending would make it fail once
   * applied (a multisig wallet change that repeats or contradicts a pending one): it would only be
   * dropped by the block's producer.
   */
  PendingConflict: 'TX_PENDING_CONFLICT',
} as const;
export type TxErrorCode = (typeof TxErrorCode)[keyof typeof TxErrorCode];

/** IGNORE for state-dependent refusals, REJECT for what is invalid whatever the state. */
const TX_ACTION: Record<TxErrorCode, GossipAction> = {
  TX_BALANCE_TOO_LOW: GossipAction.Ignore,
  TX_ALREADY_PENDING: GossipAction.Ignore,
  TX_ALREADY_APPLIED: GossipAction.Ignore,
  TX_POOL_FULL: GossipAction.Ignore,
  TX_UNKNOWN_SIGNER: GossipAction.Ignore,
  TX_AHEAD_OF_TIP: GossipAction.Ignore,
  TX_FEE_UNSETTLED: GossipAction.Ignore,
  TX_BAD_SIGNATURE: GossipAction.Reject,
  TX_INVALID: GossipAction.Reject,
  TX_TYPE_RULE: GossipAction.Ignore,
  TX_BAD_PAYMENT: GossipAction.Reject,
  TX_NOT_READY: GossipAction.Ignore,
  TX_PENDING_CONFLICT: GossipAction.Ignore,
};

/** A transaction was refused (admission, block application or the payment builder). */
export class TxError extends Error {
  override name = 'TxError';
  readonly action: GossipAction;
  constructor(
    readonly code: TxErrorCode,
    message: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
    this.action = TX_ACTION[code];
  }
}

/** Shorthands for the codes raised in many places. */
export const balanceTooLow = (context: Record<string, unknown> = {}): TxError =>
  new TxError(TxErrorCode.BalanceTooLow, 'Balance is too low', context);
export const invalidTx = (message: string, context: Record<string, unknown> = {}): TxError =>
  new TxError(TxErrorCode.Invalid, message, context);

export const BlockErrorCode = {
  /** Height above tip + 1: the node is behind; sync from the sender. */
  ParentUnknown: 'BLOCK_PARENT_UNKNOWN',
  /** Height ≤ tip: already have a block at that height. */
  AlreadyKnown: 'BLOCK_ALREADY_KNOWN',
  /** Right height, but `lastBlockChecksum` is not our tip's checksum. */
  ParentMismatch: 'BLOCK_PARENT_MISMATCH',
  /** The wire bytes do not decode (offset in context). */
  Malformed: 'BLOCK_MALFORMED',
  BadVersion: 'BLOCK_BAD_VERSION',
  BadTimestamp: 'BLOCK_BAD_TIMESTAMP',
  /** The transactions given do not match the header's txids, count or root. */
  TxMismatch: 'BLOCK_TX_MISMATCH',
  /** One transaction fails in import mode; the whole block fails (context: txid, code). */
  InvalidTransaction: 'BLOCK_INVALID_TRANSACTION',
  BadSignature: 'BLOCK_BAD_SIGNATURE',
  /** A signer whose key this node does not know yet (learnt from its presence): try again later. */
  SignerUnknown: 'BLOCK_SIGNER_UNKNOWN',
  /** Not enough valid signatures for the acceptance rule (consensus). */
  InsufficientSignatures: 'BLOCK_INSUFFICIENT_SIGNATURES',
  WalletStateMismatch: 'BLOCK_WALLET_STATE_MISMATCH',
  NameStateMismatch: 'BLOCK_NAME_STATE_MISMATCH',
  TotalFeeMismatch: 'BLOCK_TOTAL_FEE_MISMATCH',
  SignatureFreezeMismatch: 'BLOCK_SIGNATURE_FREEZE_MISMATCH',
  /** A superblock's or block 1's extra header rows are wrong (segments, previous superblock, signer bits). */
  BadHeader: 'BLOCK_BAD_HEADER',
  /**
   * A genesis network's block without the staking reward it owes, with an extra one, or with one
   * that differs from the one the chain computes (reference-network §5.1; context `problem`).
   */
  StakingReward: 'BLOCK_BAD_STAKING_REWARD',
  /** A genesis network's superblock carries ordinary transactions (reference-network §5.8). */
  SuperBlockTransactions: 'BLOCK_SUPERBLOCK_TRANSACTIONS',
  /** `addBlockSignatures` for a height the chain does not hold. */
  NotFound: 'BLOCK_NOT_FOUND',
  /** `revertTip` on block 1, or on a block whose undo record is gone (deeper than MAX_REVERT_DEPTH). */
  RevertUnavailable: 'BLOCK_REVERT_UNAVAILABLE',
} as const;
export type BlockErrorCode = (typeof BlockErrorCode)[keyof typeof BlockErrorCode];

const BLOCK_IGNORED = new Set<BlockErrorCode>([
  BlockErrorCode.ParentUnknown,
  BlockErrorCode.AlreadyKnown,
  BlockErrorCode.ParentMismatch,
  BlockErrorCode.NotFound,
  BlockErrorCode.SignerUnknown,
  BlockErrorCode.RevertUnavailable,
  // Masters may freeze a block's signatures differently: the proposer's copy of block n − 5 settles it (reference-network §5.5).
  BlockErrorCode.SignatureFreezeMismatch,
  // Which signatures count depends on the presences this node holds (§5.2): another view is no fault.
  BlockErrorCode.InsufficientSignatures,
]);

/** A block was refused by `importBlock` (or a signature by `addBlockSignatures`). */
export class BlockError extends Error {
  override name = 'BlockError';
  readonly action: GossipAction;
  constructor(
    readonly code: BlockErrorCode,
    message: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
    this.action = BLOCK_IGNORED.has(code) ? GossipAction.Ignore : GossipAction.Reject;
  }
}

/**
 * The data directory holds the chain of another network or genesis than the node was started
 * for, or one made under other consensus values (src/node/chain-rules.ts): refused at start, as
 * continuing would extend that chain with blocks its network refuses.
 */
export class ChainIdentityError extends Error {
  override name = 'ChainIdentityError';
  constructor(
    message: string,
    readonly code: 'CHAIN_OTHER_NETWORK' | 'CHAIN_OTHER_GENESIS' | 'CHAIN_OTHER_RULES',
  ) {
    super(message);
  }
}

/** A read of stored chain data found bytes it cannot decode (a corrupted store). */
export class StoreCorruptionError extends Error {
  override name = 'StoreCorruptionError';
}

/**
 * A stored block that still decodes but is not the block the chain holds at its height (its bytes
 * changed on disk): never served as valid (chain.ts `servedBlock`); RPC answers it with its own code.
 */
export class StoredBlockDamagedError extends StoreCorruptionError {
  override name = 'StoredBlockDamagedError';
  constructor(
    readonly num: bigint,
    message: string,
  ) {
    super(message);
  }
}

/** The one sentence of a store found damaged at start-up: where, what, and what the operator can do. */
export function storeDamaged(path: string, why: string): string {
  return `the store in ${path} is damaged: ${why}; restore the data directory from a backup, or move it away and let the node sync or start afresh`;
}
