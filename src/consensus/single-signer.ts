/**
 * The single-signer rule of the embedded `reg` network (DESIGN.md decision 3): the node alone
 * proposes and signs each block with its wallet key over `sha3_512sq(checksum)`; a block counts
 * with one valid signature (required consensus 1). Every signature a block carries must verify
 * (one bad signature refuses the block), one per signer, with a key the node knows.
 *
 * Without the reference's signature freezing (reference-network §5.5) a block's signature row may
 * differ between nodes, so header row 4 hashes block n − 5's checksum instead of its signatures:
 * `sha3_512sq(u64 LE (n − 5) ‖ checksum of block n − 5)`.
 */
import type { Block, BlockSignature } from '../chain/block.js';
import type { BlockAcceptance, Chain } from '../chain/chain.js';
import { BlockError, BlockErrorCode } from '../chain/errors.js';
import { sha3_512sq } from '../core/hash.js';
import { addressToText } from '../formats/address.js';
import { concatBytes } from '../formats/bytes.js';
import { latin1Key } from '../state/keys.js';

export interface SingleSignerOptions {
  chain: Chain;
  /** The key of a signer address the wallet state may not know (the node's own key); null → the wallet state's. */
  signerKey(address: Uint8Array): Uint8Array | null;
}

export function singleSignerAcceptance(o: SingleSignerOptions): BlockAcceptance {
  const keyOf = (signer: Uint8Array): Uint8Array | null => (signer.length > 45 ? signer : (o.signerKey(signer) ?? o.chain.wallet(signer).publicKey));
  return {
    async verifySignatures(block: Block, checksum: Uint8Array, mode: 'full' | 'each'): Promise<BlockSignature[]> {
      const signers = new Set<string>();
      for (const s of block.signatures) {
        const key = latin1Key(s.signer);
        if (signers.has(key)) throw new BlockError(BlockErrorCode.BadSignature, `block ${block.num} carries two signatures of one signer`);
        signers.add(key);
      }
      const unknown = block.signatures.find((s) => !keyOf(s.signer));
      if (unknown) {
        throw new BlockError(BlockErrorCode.SignerUnknown, `block ${block.num} is signed by ${addressToText(unknown.signer)}, whose key this node does not know yet`, { signer: unknown.signer });
      }
      const data = sha3_512sq(checksum);
      const missing = block.signatures.findIndex((s) => !s.signature);
      if (missing >= 0) throw new BlockError(BlockErrorCode.BadSignature, `signature ${missing} of block ${block.num} is empty`, { num: block.num, index: missing });
      const ok = block.signatures.length === 0 ? [] : await o.chain.verifyBlockRsa(block.signatures.map((s) => ({ publicKey: keyOf(s.signer)!, data, signature: s.signature! })));
      const bad = ok.findIndex((v) => !v);
      if (bad >= 0) throw new BlockError(BlockErrorCode.BadSignature, `signature ${bad} of block ${block.num} does not verify`, { num: block.num, index: bad });
      if (mode === 'full' && block.signatures.length < 1) {
        throw new BlockError(BlockErrorCode.InsufficientSignatures, `block ${block.num} has 0 valid signatures, 1 required`, { required: 1 });
      }
      return [...block.signatures];
    },
    freezeChecksum(num: bigint): Uint8Array | null {
      const frozen = num > 5n ? o.chain.getBlock(num - 5n) : null;
      return frozen ? frozenRowChecksum(num - 5n, frozen.checksum) : null;
    },
  };
}

/**
 * What header row 4 of block `num + 5` holds for block `num` on this network:
 * `sha3_512sq(u64 LE num ‖ checksum)`. It is also that block's getblock `Sig Checksum`, since
 * explorers compare the two (Ixian-Explorer's addBlock rolls block n − 5 back when they differ).
 */
export function frozenRowChecksum(num: bigint, checksum: Uint8Array): Uint8Array {
  const at = new Uint8Array(8);
  new DataView(at.buffer).setBigUint64(0, num, true);
  return sha3_512sq(concatBytes(at, checksum));
}
