/**
 * Why a link ends: every rejection reason of the reference's hello (reference-network.md §2.3,
 * bye codes) and the link's own reasons, each with a WebSocket close code (4000–4999, the range
 * RFC 6455 leaves to applications) and a readable text. Reasons with a reference bye code keep
 * it as 4000 + code (§10 keep 1: 4602 tooFarBehind); ours without one use 4800–4899.
 */

export const CloseReason = Object.freeze({
  blockInvalid: 'blockInvalid',
  shuffling: 'shuffling',
  shutdown: 'shutdown',
  requested: 'requested',
  expectingMaster: 'expectingMaster',
  deprecated: 'deprecated',
  wrongNetwork: 'wrongNetwork',
  notConnectable: 'notConnectable',
  tooFarBehind: 'tooFarBehind',
  authFailed: 'authFailed',
  addressMismatch: 'addressMismatch',
  rejected: 'rejected',
  notReady: 'notReady',
  wrongGenesis: 'wrongGenesis',
  badSignature: 'badSignature',
  clockSkew: 'clockSkew',
  capacity: 'capacity',
  banned: 'banned',
  duplicateIdentity: 'duplicateIdentity',
  selfConnection: 'selfConnection',
  helloTimeout: 'helloTimeout',
  idleTimeout: 'idleTimeout',
  slowPeer: 'slowPeer',
  malformedFrame: 'malformedFrame',
  misbehaviour: 'misbehaviour',
  unexpectedMessage: 'unexpectedMessage',
} as const);

export type CloseReason = (typeof CloseReason)[keyof typeof CloseReason];

export interface CloseReasonInfo {
  /** WebSocket close code. */
  code: number;
  /** Default reason text (a caller may give a more precise one). */
  text: string;
  /** The reference bye code it stands for, if any. */
  byeCode: number | null;
  /** True when dialling the same peer again cannot help (a dialler stops reconnecting to it). */
  permanent: boolean;
}

const R = (code: number, text: string, byeCode: number | null, permanent: boolean): CloseReasonInfo =>
  Object.freeze({ code, text, byeCode, permanent });

export const CLOSE_REASONS: Readonly<Record<CloseReason, CloseReasonInfo>> = Object.freeze({
  blockInvalid: R(4100, 'Invalid block', 100, false),
  shuffling: R(4200, 'Disconnected for shuffling', 200, false),
  shutdown: R(4201, 'Node shutting down', null, false),
  requested: R(4202, 'Disconnected by the operator', null, false),
  expectingMaster: R(4400, 'Expecting a master node', 400, true),
  deprecated: R(4501, 'Unsupported protocol version', 501, true),
  wrongNetwork: R(4502, 'Wrong network', 502, true),
  notConnectable: R(4601, 'Advertised endpoint is not connectable', 601, false),
  tooFarBehind: R(4602, 'Too far behind', 602, false),
  authFailed: R(4603, 'Address does not match the public key', 603, true),
  addressMismatch: R(4604, 'Unexpected wallet address', 604, true),
  rejected: R(4605, 'Rejected', 605, false),
  notReady: R(4700, 'Not ready: synchronizing', 700, false),
  wrongGenesis: R(4801, 'Wrong genesis', null, true),
  badSignature: R(4802, 'Bad hello signature', null, true),
  clockSkew: R(4803, 'Clock skew too large', null, false),
  capacity: R(4804, 'Too many peers', null, false),
  banned: R(4805, 'Banned', null, false),
  duplicateIdentity: R(4806, 'Already connected to this identity', null, false),
  selfConnection: R(4807, 'Connected to self', null, true),
  helloTimeout: R(4808, 'No hello in time', null, false),
  idleTimeout: R(4809, 'Idle timeout', null, false),
  slowPeer: R(4810, 'Send queue full: peer too slow', null, false),
  malformedFrame: R(4811, 'Malformed frame', null, false),
  misbehaviour: R(4812, 'Misbehaviour score too high', null, false),
  unexpectedMessage: R(4813, 'Unexpected message before hello', null, false),
});

const BY_CODE = new Map<number, CloseReason>(
  (Object.entries(CLOSE_REASONS) as [CloseReason, CloseReasonInfo][]).map(([r, i]) => [i.code, r]),
);

/** The reason of a received close code, or null for codes outside our table (1000, 1006…). */
export const closeReasonOfCode = (code: number): CloseReason | null => BY_CODE.get(code) ?? null;

/** RFC 6455 limits a close reason to 123 bytes of UTF-8. */
export const MAX_CLOSE_TEXT_BYTES = 123;

/** The close text of a reason: the default text, with `detail` after a colon, cut to 123 bytes. */
export function closeText(reason: CloseReason, detail?: string): string {
  const base = CLOSE_REASONS[reason].text;
  const full = detail ? `${base}: ${detail}` : base;
  const bytes = new TextEncoder().encode(full);
  if (bytes.length <= MAX_CLOSE_TEXT_BYTES) return full;
  // Cut on a character boundary.
  let out = '';
  let used = 0;
  for (const ch of full) {
    const n = new TextEncoder().encode(ch).length;
    if (used + n > MAX_CLOSE_TEXT_BYTES) break;
    out += ch;
    used += n;
  }
  return out;
}
