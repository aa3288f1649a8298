/**
 * Utilities (interface.md "Utilities"; reference-rpc-messaging.md §2.7, §2.8) and `sign`.
 */
import { validateExtendedAddress } from '../../formats/extended-address.js';
import { toHex } from '../../formats/bytes.js';
import { messageDigest, verifyMessage } from '../../formats/rsa.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';

/** The modules these operations use. */
export type UtilityModules = Pick<NodeModules, 'wallet'>;

const method = methodFor<UtilityModules>();

export const utilityMethods = [
  method({
    name: 'verify',
    group: 'Utilities',
    maturity: 'Finalized',
    summary: 'Verifies an RSA signature over a message (sha3_512sqTrunc) or a hash',
    params: [
      { name: 'publicKey', kind: 'hex', required: true, description: 'Hex public key', missingMessage: "Missing parameter 'publicKey'." },
      { name: 'signature', kind: 'hex', required: true, description: 'Hex signature', missingMessage: "Missing parameter 'signature'." },
      { name: 'message', kind: 'string', description: 'UTF-8 text that was signed' },
      { name: 'hash', kind: 'hex', description: 'Hex hash that was signed' },
    ],
    result: { description: "'OK' or 'FAIL'" },
    handler: (p) => {
      if (p.message === undefined && p.hash === undefined) throw invalidParams("Missing parameter 'message' or 'hash'.");
      const ok = verifyMessage({ publicKey: p.publicKey, signature: p.signature, message: p.message, hash: p.hash });
      return ok ? 'OK' : 'FAIL';
    },
  }),
  method({
    name: 'validateAddress',
    group: 'Utilities',
    maturity: 'Finalized',
    summary: 'Checks that a string is a valid address (Base58, checksum), plain or extended',
    params: [{ name: 'address', kind: 'string', required: true, description: 'Base58 address, optionally with an extended-address suffix', missingMessage: 'Invalid address was specified' }],
    result: { description: "'OK'" },
    handler: (p) => {
      // The Δ2026 rule (reference-formats §7.6): an extended address addTransaction pays is valid too, its suffix checked.
      if (!validateExtendedAddress(p.address)) throw invalidParams('Invalid address was specified');
      return 'OK';
    },
  }),
  method({
    name: 'sign',
    group: 'Utilities',
    summary: "Signs a message or a hash with the node's primary wallet key",
    params: [
      { name: 'message', kind: 'string', description: 'UTF-8 text to sign (hashed with sha3_512sqTrunc)' },
      { name: 'hash', kind: 'hex', description: 'Hex bytes to sign as given' },
    ],
    result: { description: '{signature, publicKey} in hex' },
    handler: (p, ctx) => {
      const data = p.message !== undefined ? messageDigest(p.message) : p.hash;
      if (data === undefined) throw invalidParams("Missing parameter 'message' or 'hash'.");
      const key = ctx.wallet.primary;
      return { signature: toHex(key.sign(data)), publicKey: toHex(key.publicKey) };
    },
  }),
];
