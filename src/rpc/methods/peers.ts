/**
 * The peer operations of the reference (reference-network.md §9; reference-client-methods.md):
 * `clients`, `servers`, `pl`, `getpresence`, `countnodeversions`, `connect`, `isolate`,
 * `reconnect`, `blacklistpeer`, `clearpeerblacklist`, with the reference's result shapes. On a lone
 * node (no peer network) the lists are empty and the actions say there is no network.
 */
import { isIP } from 'node:net';
import { decodedAddress } from '../../codec/json.js';
import { Address } from '../../formats/address.js';
import { toBase64 } from '../../formats/bytes.js';
import { parseTarget, targetKey } from '../../network/dial.js';
import type { PresenceAddress, PresenceEntry } from '../../network/presence.js';
import type { NodeModules } from '../../node/modules.js';
import { invalidParams, methodFor, RpcCode, RpcError } from '../types.js';
import { signerPowSolutionJson, type BlockChecksumLookup } from './pow-json.js';

/** The modules these operations use. */
export type PeerModules = Pick<NodeModules, 'p2p' | 'chain' | 'light'>;

/** Block checksums from the chain, or a light node's headers. */
const blockChecksumLookup = (m: PeerModules): BlockChecksumLookup =>
  (num) => m.chain.getBlock(num)?.checksum ?? m.light?.headers.get(num)?.checksum ?? null;

const method = methodFor<PeerModules>();


/**
 * A Presence object as the reference serialises it (`pl`, `getpresence`). `powSolution` is the one
 * of the wallet's newest keep-alive (CORE `PresenceList.receiveKeepAlive` sets the presence's
 * solution from each keep-alive it takes).
 */
export function presenceJson(p: PresenceEntry, blockChecksum: BlockChecksumLookup) {
  let newest: PresenceAddress | undefined;
  for (const d of p.devices.values()) if (!newest || d.lastSeen > newest.lastSeen) newest = d;
  return {
    version: 1,
    wallet: decodedAddress(p.address),
    pubkey: toBase64(p.publicKey),
    metadata: null,
    addresses: [...p.devices.values()].map((d) => ({
      version: 2,
      device: toBase64(d.deviceId),
      address: d.host,
      type: d.type,
      nodeVersion: d.nodeVersion,
      lastSeenTime: d.lastSeen,
      signature: toBase64(d.signature),
    })),
    powSolution: newest?.powSolution ? signerPowSolutionJson(newest.powSolution, p.address, blockChecksum) : null,
  };
}

/** A Presence object (`pl`, `getpresence`): its type, inferred from {@link presenceJson}, is what the typed client declares. */
export type PresenceJson = ReturnType<typeof presenceJson>;

/** The peer network; a lone node has none: -32601, as for any operation this node does not serve (see messaging.ts). */
const network = (m: PeerModules) => {
  if (!m.p2p) throw new RpcError(RpcCode.MethodNotFound, 'This node is not on a peer network (start it with --p2p-port, --peer or --genesis)');
  return m.p2p;
};

/**
 * `blacklistpeer`'s host: an IP address, `ip:port` or `[ipv6]:port` (peer links are matched by the
 * address seen on their socket, so a name would never match one).
 */
export function blacklistHostParam(text: string): string {
  if (isIP(text) !== 0) return text;
  const t = parseTarget(text);
  if (t && isIP(t.host) !== 0 && (t.host.includes(':') ? text.startsWith('[') : true)) return targetKey(t);
  throw invalidParams(`Invalid 'host' ${JSON.stringify(text)}: expected an IP address, ip:port or [ipv6]:port`);
}

function walletParam(text: string): Uint8Array {
  try {
    return Address.fromText(text).addressNoChecksum;
  } catch {
    throw invalidParams(`Invalid wallet address ${JSON.stringify(text)}`);
  }
}

export const peerMethods = [
  method({
    name: 'clients',
    group: 'Network',
    summary: 'Incoming peer links, as the remote address seen on each socket (ip:port)',
    params: [],
    result: { description: 'array of "ip:port"' },
    handler: (_p, m): string[] => m.p2p?.statusMembers()['Network Clients'] ?? [],
  }),
  method({
    name: 'servers',
    group: 'Network',
    summary: 'Outgoing peer links that completed the hello, as the dialled ip:port',
    params: [],
    result: { description: 'array of "ip:port"' },
    handler: (_p, m): string[] => m.p2p?.statusMembers()['Network Servers'] ?? [],
  }),
  method({
    name: 'pl',
    group: 'Network',
    summary: 'The presence list: every known node with its addresses, types and last keep-alive',
    params: [],
    result: { description: 'array of Presence objects' },
    handler: (_p, m): PresenceJson[] => m.p2p?.peers.presence.all().map((p) => presenceJson(p, blockChecksumLookup(m))) ?? [],
  }),
  method({
    name: 'getpresence',
    group: 'Network',
    summary: 'The presence of one wallet, or null',
    params: [{ name: 'wallet', kind: 'string', required: true, description: 'Base58 wallet address', missingMessage: "Parameter 'wallet' is missing" }],
    result: { description: 'Presence object or null' },
    handler: (p, m): PresenceJson | null => {
      const address = walletParam(p.wallet);
      const entry = m.p2p?.peers.presence.get(address);
      return entry ? presenceJson(entry, blockChecksumLookup(m)) : null;
    },
  }),
  method({
    name: 'countnodeversions',
    group: 'Network',
    summary: 'Node versions of the presence list with how many addresses run each',
    params: [],
    result: { description: 'object version → count' },
    handler: (_p, m): Record<string, number> => m.p2p?.peers.presence.nodeVersions() ?? {},
  }),
  method({
    name: 'connect',
    group: 'Network',
    summary: 'Dials a peer (host:port) and keeps the link like a configured peer once reached; one never reached is dropped after 3 failed dials (logged at warn)',
    params: [{ name: 'to', kind: 'string', required: true, description: 'host:port of the peer listener', missingMessage: "Parameter 'to' is missing" }],
    result: { description: "'OK'" },
    handler: (p, m): string => {
      try {
        network(m).peers.connect(p.to);
      } catch (err) {
        if (err instanceof RangeError) throw invalidParams(`Invalid 'to': ${err.message}`);
        throw err;
      }
      return 'OK';
    },
  }),
  method({
    name: 'isolate',
    group: 'Network',
    summary: 'Closes every peer link (configured peers are redialled with backoff)',
    params: [],
    result: { description: "'OK'" },
    handler: (_p, m): string => {
      network(m).peers.isolate();
      return 'OK';
    },
  }),
  method({
    name: 'reconnect',
    group: 'Network',
    summary: 'Drops and redials every dialled peer now',
    params: [],
    result: { description: "'OK'" },
    handler: (_p, m): string => {
      network(m).redial();
      return 'OK';
    },
  }),
  method({
    name: 'blacklistpeer',
    group: 'Network',
    summary: 'Blacklists a peer by host and/or wallet for 12 hours and disconnects it',
    params: [
      { name: 'host', kind: 'string', description: 'IP address to refuse (ip, ip:port or [ipv6]:port)' },
      { name: 'wallet', kind: 'string', description: 'Base58 wallet address to refuse' },
    ],
    result: { description: "'OK'" },
    handler: (p, m): string => {
      if (!p.host && !p.wallet) throw invalidParams("Parameter 'host' or 'wallet' is missing");
      const host = p.host ? blacklistHostParam(p.host) : undefined;
      if (p.wallet) walletParam(p.wallet);
      network(m).peers.blacklistPeer({ ...(host ? { host } : {}), ...(p.wallet ? { wallet: p.wallet } : {}) });
      return 'OK';
    },
  }),
  method({
    name: 'clearpeerblacklist',
    group: 'Network',
    summary: 'Lifts every blacklist entry and automatic ban',
    params: [],
    result: { description: "'OK'" },
    handler: (_p, m): string => {
      network(m).peers.clearBlacklist();
      return 'OK';
    },
  }),
];
