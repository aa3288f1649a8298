/**
 * The name system on chain: the type-4 hooks (validate on admission and in blocks, apply in
 * blocks), expiry, the reward-pool payout, the name-state checksum of each block header and the
 * `status` counters, plugged in through `src/chain/extensions.ts`. Importing this module registers it.
 */
import type { Transaction } from '../codec/types.js';
import { registerChainExtension, type BlockWriter, type ChainExtension, type ExtensionEnv, type TxView } from '../chain/extensions.js';
import { TxRejectedError } from '../chain/errors.js';
import { addressFromText } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { toHex } from '../formats/bytes.js';
import { NAME_REWARD_POOL_ADDRESS, TransactionType } from '../formats/constants.js';
import { expireNames, nameStateChecksum, payNameReward } from './block-rules.js';
import { LmdbNameState, NAME_SUB_DATABASES } from './lmdb-state.js';
import { nameParamsFor } from './params.js';
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
    if (err instanceof NameRuleError || err instanceof NameCodecError) throw new TxRejectedError(err.message);
    throw err;
  }
}

export interface NameSystem {
  state: LmdbNameState;
  env: NameRulesEnv;
  extension: ChainExtension;
}

/** The name system of one node. */
export function createNameSystem(envIn: ExtensionEnv): NameSystem {
  const state = new LmdbNameState(envIn.store);
  const env: NameRulesEnv = { params: nameParamsFor(envIn.network, envIn.options), poolAddress: NAME_POOL_ADDRESS };
  // Names touched by the block being built, for its header checksum (§5.6).
  let touchedHeight = -1n;
  let touched: Uint8Array[] = [];
  const beginBlock = (height: bigint): void => {
    if (touchedHeight === height) return;
    touchedHeight = height;
    touched = [];
    expireNames(state, height, env.params);
  };

  const extension: ChainExtension = {
    name: 'names',
    subDatabases: [NAME_SUB_DATABASES.names, NAME_SUB_DATABASES.expiry],
    txTypes: {
      [TransactionType.RegName]: {
        validate(tx: Transaction, view: TxView): void {
          const block = isBlock(view);
          if (block) beginBlock(view.height);
          asRejection(() => planNameTx(state, env, tx.outputs, view.height, { fees: !block, deferRecordChecks: block }));
        },
        apply(tx: Transaction, block: BlockWriter): void {
          beginBlock(block.height);
          const outcome = asRejection(() => applyNameTx(state, env, tx.outputs, block.height));
          touched.push(...outcome.touched);
          if (!outcome.applied) envIn.log.info({ reason: outcome.reason }, 'updateRecord included without effect');
        },
      },
    },
    onBlock(block: BlockWriter): void {
      beginBlock(block.height);
      // §5.5: the block's share of the pool leaves the pool address and joins the block's
      // totalFee, which the chain then pays to the signer (foundation share apart) like any fee.
      const reward = payNameReward(state, block.height);
      if (reward > 0n) {
        block.debit(NAME_POOL_ADDRESS, reward);
        block.addFee(reward);
      }
    },
    stateChecksum(view: TxView): Uint8Array {
      return nameStateChecksum(state, view.height, touchedHeight === view.height ? touched : []);
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

/** The name systems of the running nodes, by store path (the RPC handlers look theirs up). */
const systems = new Map<string, NameSystem>();

/** The name system of the node owning `store`. */
export function nameSystemOf(storePath: string): NameSystem | undefined {
  return systems.get(storePath);
}

registerChainExtension((envIn) => {
  const system = createNameSystem(envIn);
  systems.set(envIn.store.path, system);
  return system.extension;
});
