/**
 * `status` on a light node (relay, client): `Block generated seconds ago` and `DLT Status` both
 * come from its block sync's appended time (§6, §9), as a master's both come from its chain's.
 */
import { describe, expect, it } from 'vitest';
import { statusMethods } from '../../src/rpc/methods/status.js';

const NOW_S = 1_800_000_000;

/** A light node's status modules: a tip made `tipAgeS` ago, appended here `appendedAgoS` ago. */
function lightCtx(tipAgeS: number, appendedAgoS: number) {
  const clock = { now: () => NOW_S * 1000 };
  return {
    network: 'reg',
    clock,
    consensus: { isRunning: false },
    light: {
      headers: { tip: { num: 40n, block: { version: 13, timestamp: BigInt(NOW_S - tipAgeS), walletStateChecksum: new Uint8Array(0), regNameStateChecksum: null } } },
      wallet: { pendingList: () => [] },
    },
    p2p: {
      nodeType: 'R',
      statusMembers: () => ({}),
      networkHeight: () => 40n,
      sync: {
        status: () => (appendedAgoS > 1800 ? 'ErrorLongTimeNoBlock' : 'Active'),
        secondsSinceBlock: () => appendedAgoS,
      },
    },
  };
}

describe('status on a light node', () => {
  it('reports seconds since its tip was appended here, the time its DLT Status runs from (not the block timestamp)', () => {
    const def = statusMethods.find((m) => m.name === 'status')! as unknown as { handler: (p: object, ctx: object) => Record<string, unknown> };
    // Headers synced a moment ago, of blocks made an hour ago (a relay that caught up).
    const caughtUp = def.handler({}, lightCtx(3600, 2));
    expect(caughtUp['Block generated seconds ago']).toBe(2);
    expect(caughtUp['DLT Status']).toBe('Active');
    // A tip taken back (§6): appended time = the new tip's timestamp, 2000 s ago.
    const reverted = def.handler({}, lightCtx(2000, 2000));
    expect(reverted['Block generated seconds ago']).toBe(2000);
    expect(reverted['DLT Status']).toBe('ErrorLongTimeNoBlock');
  });
});
