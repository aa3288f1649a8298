/**
 * `getBlock`: a stored block by number (reference-formats.md §10).
 */
import { addressToText } from '../../formats/address.js';
import { formatAmount } from '../../formats/amount.js';
import { toHex } from '../../formats/bytes.js';
import { decodeBinaryTransactionId, transactionId } from '../../codec/transaction.js';
import { TransactionType } from '../../formats/constants.js';
import { U64_MAX } from '../../formats/varint.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';

/** The modules these operations use. */
export type BlockModules = Pick<NodeModules, 'chain'>;

const method = methodFor<BlockModules>();

/** Text id of a binary id (§8.7): prefix 0 marks a staking reward. */
function textId(binary: Uint8Array): string {
  const id = decodeBinaryTransactionId(binary);
  const type = id.prefix === 0 ? TransactionType.StakingReward : TransactionType.Normal;
  return transactionId({ type, blockHeight: id.blockHeight }, id.checksum);
}

const hexOrNull = (b: Uint8Array | null): string | null => (b ? toHex(b) : null);

export const blockMethods = [
  method({
    name: 'getBlock',
    group: 'Blocks',
    summary: 'A stored block by number; `bytes` returns its hex',
    params: [
      { name: 'num', kind: 'integer', required: true, bigint: true, min: 1n, max: U64_MAX, description: 'Block number', missingMessage: "Parameter 'num' is missing" },
      { name: 'bytes', kind: 'boolean', description: 'Return the block bytes as hex' },
    ],
    result: { description: 'Block object or hex' },
    handler: (p, ctx) => {
      const found = ctx.chain.getBlock(p.num);
      if (!found) throw invalidParams(`Block ${String(p.num)} does not exist; the tip is ${ctx.chain.height}`);
      if (p.bytes) return toHex(found.bytes);
      const b = found.block;
      return {
        'Block Number': b.num.toString(),
        Version: b.version,
        'Block Checksum': toHex(found.checksum),
        'Last Block Checksum': hexOrNull(b.lastBlockChecksum),
        'Wallet State Checksum': hexOrNull(b.walletStateChecksum),
        'RegName State Checksum': hexOrNull(b.regNameStateChecksum),
        'Sig freeze Checksum': hexOrNull(b.signatureFreezeChecksum),
        'PIT Checksum': hexOrNull(b.pitRoot),
        Difficulty: b.difficulty.toString(),
        Signatures: b.signatures.length,
        'Signer Addresses': b.signatures.map((s) => addressToText(s.signer)),
        Timestamp: b.timestamp.toString(),
        'Total Fee': formatAmount(b.totalFee),
        'Transaction Count': b.txIds.length,
        TxIDs: b.txIds.map(textId),
      };
    },
  }),
];
