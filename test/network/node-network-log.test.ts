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
import { encodeBlockHeader } from '../../src/chain/block.js';
import { HeaderChain } from '../../src/chain/header-chain.js';
import { systemClock } from '../../src/clock.js';
import { parseTarget } from '../../src/network/dial.js';

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

describe('NodeNetwork: a light node with nothing to dial', () => {
  async function started(role: 'master' | 'relay' | 'client', extra: { peers?: string[]; seeds?: string[] } = {}): Promise<Record[]> {
    const t = await openTestChain();
    open.push(t);
    const records: Record[] = [];
    const headers = new HeaderChain({ store: t.store, genesisHeader: encodeBlockHeader(t.chain.getBlock(1n)!.block), superBlockPeriod: t.chain.superBlockPeriod, clock: systemClock });
    const node = new NodeNetwork({
      role, network: 'reg', chain: t.chain, mempool: t.mempool, events: t.events, log: capturingLog(records), clock: new ManualClock(),
      identity: me, productVersion: 'dltnode-test', endpoint: '', listeningPort: () => 0, blockIntervalSeconds: 30,
      peers: (extra.peers ?? []).map((p) => parseTarget(p)!),
      ...(extra.seeds ? { seeds: extra.seeds.map((p) => parseTarget(p)!) } : {}),
      ...(role === 'master' ? {} : { light: { headers, addresses: () => [], onHeader: () => undefined } }),
    });
    node.start();
    node.stop();
    return records.filter((r) => r.level === 'warn' && /no peer to dial/.test(r.msg));
  }

  it('warns once at start when a relay or client has no --peer, no --seed and nothing remembered', async () => {
    for (const role of ['relay', 'client'] as const) {
      const warned = await started(role);
      expect(warned, role).toHaveLength(1);
      expect(warned[0]!.msg).toContain(`this ${role} has no peer to dial`);
    }
  });

  it('says nothing for a master (a lone master is a network) or a light node given a peer or a seed', async () => {
    expect(await started('master')).toHaveLength(0);
    expect(await started('relay', { peers: ['127.0.0.1:10002'] })).toHaveLength(0);
    expect(await started('client', { seeds: ['127.0.0.1:10003'] })).toHaveLength(0);
  });
});
