// Peer-side attacks at length (issue 13 §4 d): hundreds of bad connections and several non-readers.
import { describe, it } from 'vitest';
import { runPeerAttacks } from './peer-frames-suite.js';

describe('peer frames (slow)', () => {
  it('closes every bad connection; the master produces on and keeps its relay', async () => {
    await runPeerAttacks({ garbage: 400, oversized: 10, beforeHello: 150, replays: 40, nonReaders: 5 }, Number(process.env.DLTNODE_CAMPAIGN_SEED ?? 7));
  }, 600_000);
});
