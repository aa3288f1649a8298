/**
 * Task `verifyPow`: Argon2id mining-proof checks (core/pow.ts; rpc-messaging
 * `verifyminingsolution`). Items are claims already checked on the main side, with their variant.
 *
 * Packed with tasks/codec.ts, 4 parts per item: meta (u8 variant 0..3 = v0..v3, u64 LE
 * difficulty), block checksum, solver address, nonce. Result: one byte per item (1 = valid).
 */
import { powClaimVariant, powVerifyVariant, type PowClaim, type PowVariant } from '../../core/pow.js';
import { checkResultBytes, packParts, unpackParts } from './codec.js';
import type { PoolTask, TaskContext } from './types.js';

/** A claim already checked on the sending side (`powClaimVariant`), with its variant. */
export interface PackedClaim {
  claim: PowClaim;
  variant: PowVariant;
}

/**
 * A claim checked (`powClaimVariant`) and copied as it is at the call: its bytes are packed for a
 * worker on a later macrotask, and a caller may reuse its arrays meanwhile (a miner refilling one
 * nonce buffer); the answer is for what was passed. Each field is read once, then copied
 * (`new Uint8Array`, not `.slice()`, which for a Buffer is a view).
 * @throws TypeError / RangeError naming the bad field.
 */
export function packedClaim(claim: PowClaim): PackedClaim {
  const read: PowClaim = claim !== null && typeof claim === 'object'
    ? { blockChecksum: claim.blockChecksum, solverAddress: claim.solverAddress, nonce: claim.nonce, difficulty: claim.difficulty, blockVersion: claim.blockVersion }
    : claim;
  const variant = powClaimVariant(read);
  return {
    variant,
    claim: { blockChecksum: new Uint8Array(read.blockChecksum), solverAddress: new Uint8Array(read.solverAddress), nonce: new Uint8Array(read.nonce), difficulty: read.difficulty },
  };
}

const WHAT = 'verifyPow';
const PARTS = 4;
const META_BYTES = 9;
const VARIANTS: readonly PowVariant[] = ['v0', 'v1', 'v2', 'v3'];

function meta(item: PackedClaim): Uint8Array {
  const out = new Uint8Array(META_BYTES);
  const view = new DataView(out.buffer);
  view.setUint8(0, VARIANTS.indexOf(item.variant));
  view.setBigUint64(1, item.claim.difficulty, true);
  return out;
}

export const verifyPowTask: PoolTask<PackedClaim, boolean> = {
  name: 'verifyPow',
  pack(items) {
    return packParts(items.map((i) => [meta(i), i.claim.blockChecksum, i.claim.solverAddress, i.claim.nonce]), PARTS, WHAT);
  },
  unpack(task) {
    return unpackParts(task, PARTS, WHAT).map(([m, blockChecksum, solverAddress, nonce], i) => {
      if (m!.length !== META_BYTES) throw new RangeError(`${WHAT} task: item ${i} meta has ${m!.length} bytes, expected ${META_BYTES}`);
      const view = new DataView(m!.buffer, m!.byteOffset, META_BYTES);
      const variant = VARIANTS[view.getUint8(0)];
      if (!variant) throw new RangeError(`${WHAT} task: item ${i} has unknown variant ${view.getUint8(0)}`);
      return { variant, claim: { blockChecksum: blockChecksum!, solverAddress: solverAddress!, nonce: nonce!, difficulty: view.getBigUint64(1, true) } };
    });
  },
  handle(task, context) {
    const items = verifyPowTask.unpack(task);
    const out = new Uint8Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = verifyPowTask.runOne(items[i]!, context) ? 1 : 0;
    return out;
  },
  results(packed, count) {
    return Array.from(checkResultBytes(packed, count, WHAT), (b) => b === 1);
  },
  runOne(item: PackedClaim, context: TaskContext) {
    return powVerifyVariant(item.variant, item.claim, context.core);
  },
};
