// The short version of the peer-side attacks (issue 13 §4 d); the long one is peer-frames.slow.test.ts.
import { describe, it } from 'vitest';
import { runPeerAttacks } from './peer-frames-suite.js';

describe('peer frames: garbage, oversized, before the hello, replayed hello, a peer that never reads', () => {
  it('closes every bad connection; the master produces on and keeps its relay', async () => {
    await runPeerAttacks({ garbage: 15, oversized: 1, beforeHello: 5, replays: 3, nonReaders: 1 });
  }, 120_000);
});
