/**
 * The node's log of a peer link that ended before its hello completed names the wallet and role
 * the peer's hello gave, once it was read (tester: "refused a peer link" lines did not say whom).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log/logger.js';
import { NodeNetwork } from '../../src/network/node-network.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { openTestChain, silentLog, type TestChain } from '../chain/fixture.js';
import { GENESIS, makeIdentity, ManualClock, settle, type TestIdentity, wire } from './helpers.js';
import { addressToText } from '../../src/formats/address.js';

let me: TestIdentity;
let other: TestIdentity;
beforeAll(async () => {
  [me, other] = await Promise.all([makeIdentity(), makeIdentity()]);
});

const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

interface Record {
  level: 'info' | 'warn';
  fields: { [k: string]: unknown };
  msg: string;
}

/** A logger keeping the info and warn records it is given. */
function capturingLog(records: Record[]): Logger {
  const log: Logger = {
    ...silentLog,
    info: (fields, msg) => void records.push({ level: 'info', fields: fields as Record['fields'], msg: msg ?? '' }),
    warn: (fields, msg) => void records.push({ level: 'warn', fields: fields as Record['fields'], msg: msg ?? '' }),
    child: () => log,
  };
  return log;
}

describe('NodeNetwork: the log of a refused peer link', () => {
  it('names the wallet and role of a peer refused after its hello was read (another genesis)', async () => {
    const t = await openTestChain();
    open.push(t);
    const clock = new ManualClock();
    const records: Record[] = [];
    const node = new NodeNetwork({
      role: 'master', network: 'reg', chain: t.chain, mempool: t.mempool, events: t.events, log: capturingLog(records), clock,
      identity: me, productVersion: 'dltnode-test', endpoint: '', listeningPort: () => 0, peers: [], blockIntervalSeconds: 30,
    });
    // A master of another genesis dials it: its hello is read, then refused (wrongGenesis).
    const stranger = new PeerNetwork({
      local: {
        network: 'reg', genesisChecksum: GENESIS, nodeType: 'M', address: other.address, publicKey: other.publicKey,
        productVersion: 'dltnode-test', endpoint: '', sign: other.sign,
        tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 5n, acceptingPeers: () => true,
      },
      clock,
      onMessage: () => undefined,
    });
    await settle(clock, wire(stranger, node.peers, '127.0.0.1:10001'), 2);
    const refused = records.find((r) => r.msg === 'refused a peer link');
    expect(refused?.fields).toMatchObject({ peer: addressToText(other.address), type: 'M', direction: 'inbound', byUs: true });
    stranger.stop();
  });
});
