/**
 * The consensus values a data directory's chain was made with, beyond its network and genesis
 * (checked by src/chain/chain.ts and src/consensus/producer.ts): the reg network's scaled name
 * month and grace period (reference-names.md §4.5/§5.3; they decide name expiry and the name-state
 * checksum of every block header) and its fixed mining difficulty (every imported block must carry
 * it). A restart with other values would extend the stored chain under rules it was not made with,
 * rules a node syncing it from block 1 would refuse it by. So the values are recorded in the store
 * once the node has started, and a start with others is refused, naming the option and both values,
 * before anything in the directory is written. Options that decide no rule of the stored chain (the
 * embedded network's block interval, ports, threads, the role) stay free to change.
 */
import { ChainIdentityError, StoreCorruptionError } from '../chain/errors.js';
import { META } from '../chain/chain.js';
import { nameParamsFor } from '../names/params.js';
import type { Store } from '../state/store.js';
import type { NodeOptions } from './options.js';

/** The recorded values (msgpack in `meta`): effective values, so equal settings given two ways match. */
export interface ChainRules {
  nameMonthBlocks: number;
  nameGraceBlocks: number;
  /** The fixed difficulty as a decimal string; null: computed from the chain as the reference does. */
  miningDifficulty: string | null;
}

/** Each recorded value: its option, and the value as the operator gives it (or leaves it out). */
const blocksShown = (v: unknown, consensus: boolean): string => `${String(v)}${consensus ? ' (the consensus value)' : ''}`;
const RULES: readonly { key: keyof ChainRules; flag: string; shown: (v: unknown, consensus: boolean) => string }[] = [
  { key: 'nameMonthBlocks', flag: 'name-month-blocks', shown: blocksShown },
  { key: 'nameGraceBlocks', flag: 'name-grace-blocks', shown: blocksShown },
  { key: 'miningDifficulty', flag: 'mining-difficulty', shown: (v) => (v === null ? 'none (computed from the chain)' : String(v)) },
];

/** The rules a node started with `opts` applies. */
export function chainRulesOf(opts: NodeOptions): ChainRules {
  const params = nameParamsFor(opts.network, { nameMonthBlocks: opts.names.monthBlocks, nameGraceBlocks: opts.names.graceBlocks });
  const fixed = opts.network === 'reg' ? opts.mining?.difficulty : undefined;
  return { nameMonthBlocks: params.monthBlocks, nameGraceBlocks: params.gracePeriodBlocks, miningDifficulty: fixed === undefined ? null : fixed.toString() };
}

/**
 * Throws ChainIdentityError (CHAIN_OTHER_RULES) when the store records rules that differ from the
 * ones `opts` gives. A store without a record (new, or written before this record) passes.
 */
export function checkChainRules(store: Store, opts: NodeOptions): void {
  const stored = store.meta.get(META.rules) as Partial<ChainRules> | undefined;
  if (stored === undefined) return;
  if (stored === null || typeof stored !== 'object') throw new StoreCorruptionError(`the store's record of its chain rules (${META.rules}) cannot be read`);
  const now = chainRulesOf(opts);
  const consensus = chainRulesOf({ ...opts, network: 'main', names: {} });
  for (const { key, flag, shown } of RULES) {
    const was = stored[key];
    // A value recorded before this build knew the rule is not there: nothing to compare.
    if (was === undefined || was === now[key]) continue;
    const wasText = shown(was, was === consensus[key]);
    const nowText = shown(now[key], now[key] === consensus[key]);
    const fix = key === 'miningDifficulty' && was === null ? `without --${flag}` : `with --${flag} ${String(was)}`;
    throw new ChainIdentityError(
      `the chain in ${store.path} was made with --${flag} ${wasText}, not ${nowText}: it is a consensus rule of that chain; start it ${fix}, or give another --data-dir`,
      'CHAIN_OTHER_RULES',
    );
  }
}

/** Records the rules of `opts` in a store that holds none yet (once the node has started on it). */
export async function recordChainRules(store: Store, opts: NodeOptions): Promise<void> {
  if (store.meta.get(META.rules) !== undefined) return;
  await store.meta.put(META.rules, chainRulesOf(opts));
}
