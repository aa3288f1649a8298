/**
 * The name system on chain: the type-4 hooks (validate on admission and in blocks, apply in
 * blocks), expiry, the reward-pool payout, the name-state checksum of each block header and the
 * `status` counters, plugged in through `src/chain/extensions.ts`. `createNode` builds one name
 * system per node (`createNameSystem`) and hands its extension to the chain; the per-block state
 * (names touched, expiry done) lives in the block's write context, never in this closure.
 */
import type { Transaction } from '../codec/types.js';
import type { BlockWriter, ChainExtension, TxView } from '../chain/extensions.js';
import { TxError, TxErrorCode } from '../chain/errors.js';
import type { Network } from '../codec/types.js';
import type { Logger } from '../log/logger.js';
import type { Store } from '../state/store.js';
import { addressFromText } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { equalBytes, toHex } from '../formats/bytes.js';
import { NAME_REWARD_POOL_ADDRESS, TransactionType } from '../formats/constants.js';
import { expireNames, nameStateChecksum, payNameReward } from './block-rules.js';
import { LmdbNameState, NAME_SUB_DATABASES } from './lmdb-state.js';
import { nameParamsFor, type NameParams } from './params.js';
import { NameCodecError } from './reader.js';
import { applyNameTx, NameRuleError, planNameTx, type NameRulesEnv } from './rules.js';

/** The name-operation address as `addressNoChecksum`. */
export const NAME_POOL_ADDRESS: Uint8Array = addressFromText(NAME_REWARD_POOL_ADDRESS);

const isBlock = (view: TxView): view is BlockWriter => 'credit' in view;

/** Rule errors become the chain's rejection error, with the rule's message. */
function asRejection<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof NameRuleError || err instanceof NameCodecError) throw new TxError(TxErrorCode.TypeRule, err.message);
    throw err;
  }
}

export interface NameSystem {
  state: LmdbNameState;
  env: NameRulesEnv;
  extension: ChainExtension;
}

export interface NameSystemEnv {
  store: Store;
  network: Network;
  /** Scaled month and grace period on `reg` (`nameParamsFor`); consensus values elsewhere. */
  scale?: { nameMonthBlocks?: number; nameGraceBlocks?: number };
  log: Logger;
}

/** Per-block state of the name system, kept in the block's write context (`BlockWriter.local`). */
interface BlockNames {
  /** Ids of names the block touched, for its header checksum (§5.6). */
  touched: Uint8Array[];
}

/** The name system of one node: its state, the rule environment and its chain extension. */
export function createNameSystem(envIn: NameSystemEnv): NameSystem {
  const state = new LmdbNameState(envIn.store);
  const params: NameParams = nameParamsFor(envIn.network, envIn.scale ?? {});
  const env: NameRulesEnv = { params, poolAddress: NAME_POOL_ADDRESS };
  // Expiry runs once per block application, first thing, inside that block's write transaction.
  const blockNames = (block: BlockWriter): BlockNames =>
    block.local('names', () => {
      expireNames(state, block.height, env.params);
      return { touched: [] };
    });

  const extension: ChainExtension = {
    name: 'names',
    subDatabases: [NAME_SUB_DATABASES.names, NAME_SUB_DATABASES.expiry],
    txTypes: {
      [TransactionType.RegName]: {
        validate(tx: Transaction, view: TxView): void {
          const block = isBlock(view);
          if (block) blockNames(view);
          asRejection(() => planNameTx(state, env, tx.outputs, view.height, { fees: !block, deferRecordChecks: block }));
        },
        // §5.2: the first output (the pool's) is credited to no wallet; payNameReward pays it out.
        credits: (tx: Transaction, index: number): boolean => !(index === 0 && equalBytes(tx.outputs[0]!.address, NAME_POOL_ADDRESS)),
        apply(tx: Transaction, block: BlockWriter): void {
          const names = blockNames(block);
          const outcome = asRejection(() => applyNameTx(state, env, tx.outputs, block.height));
          names.touched.push(...outcome.touched);
          if (!outcome.applied) envIn.log.info({ reason: outcome.reason }, 'updateRecord included without effect');
        },
      },
    },
    onBlock(block: BlockWriter): void {
      blockNames(block);
      // §5.5: the block's share of the pool (held by no wallet, §5.2) joins the block's totalFee,
      // which the chain then pays to the signer (foundation share apart) like any fee.
      const reward = payNameReward(state, block.height);
      if (reward > 0n) block.addFee(reward);
    },
    stateChecksum(view: TxView | BlockWriter): Uint8Array {
      return nameStateChecksum(state, view.height, isBlock(view) ? blockNames(view).touched : [], view.superBlockPeriod);
    },
    statusFields(): Record<string, unknown> {
      return nameStatusFields(state);
    },
  };
  return { state, env, extension };
}

/** `status` members of interface.md: `Names`, `Names Reward Pool`, `RN Checksum` (all names, §5.6 superblock form). */
export function nameStatusFields(state: LmdbNameState): Record<string, unknown> {
  return {
    Names: state.count(),
    'Names Reward Pool': formatAmount(state.getMeta().rewardPool),
    'RN Checksum': toHex(nameStateChecksum(state, 0n, [])),
  };
}

