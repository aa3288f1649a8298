/**
 * The built-in miner's operations (reference-client-methods.md `minerstats`,
 * `setBlockSelectionAlgorithm`).
 */
import { PAUSED, SEARCH_MODES } from '../../mining/index.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';

/** The modules these operations use. */
export type MinerModules = Pick<NodeModules, 'mining'>;

const method = methodFor<MinerModules>();

export const minerMethods = [
  method({
    name: 'minerStats',
    group: 'Mining',
    summary: "The built-in miner's counters: hash rate, search mode, current block and difficulty, solved and empty blocks",
    params: [],
    result: { description: '{Hashrate, Search Mode, Current Block, Current Difficulty, Solved Blocks (Local), Solved Blocks (Network), Empty Blocks, Last Solved Block, Last Solved Block Time}' },
    handler: (_p, ctx) => ctx.mining.minerStats(),
  }),
  method({
    name: 'setBlockSelectionAlgorithm',
    group: 'Mining',
    summary: `Block selection of the built-in miner: -1 pauses it, 0–3 ${SEARCH_MODES.join(', ')}`,
    params: [
      {
        name: 'algorithm', kind: 'integer', required: true, min: PAUSED, max: SEARCH_MODES.length - 1, description: '-1 (pause) or 0–3',
        missingMessage: "Parameter 'algorithm' is missing", invalidMessage: 'Invalid algorithm was specified',
      },
    ],
    result: { description: 'Empty string' },
    handler: (p, ctx) => {
      ctx.mining.stats.algorithm = p.algorithm;
      return '';
    },
  }),
];
