/**
 * Compatibility module: RSA verification moved to tasks/rsa.ts (the task) and verifier.ts
 * (`createRsaVerifier`, a facade over the one pool in index.ts). Kept so src/index.ts and
 * src/node/node.ts build unchanged; remove once they import from pool/index.js or verifier.js.
 */
import { verifyRsaTask, type RsaItem } from './tasks/rsa.js';

export type { RsaItem } from './tasks/rsa.js';
export { createRsaVerifier, type RsaVerifier, type RsaVerifierOptions } from './verifier.js';

/** Packs verification items into one transferable task (tasks/codec.ts layout). */
export const packRsaItems = (items: readonly RsaItem[]): ArrayBuffer => verifyRsaTask.pack(items);
/** Reads a packed verification task (views into it). @throws RangeError for a malformed task */
export const unpackRsaItems = (task: ArrayBuffer): RsaItem[] => verifyRsaTask.unpack(task);
