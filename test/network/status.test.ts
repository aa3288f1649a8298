import { describe, expect, it } from 'vitest';
import { networkHeight, networkStatusMembers, type LinkView } from '../../src/network/status.js';

describe('network height (§6)', () => {
  const now = 1_000_000;
  it('fewer than 3 peers: the maximum; 3 or more: the top of the middle third', () => {
    expect(networkHeight([], 10n, now, now)).toBe(10n);
    expect(networkHeight([12n, 50n], 10n, now - 3000, now)).toBe(50n);
    expect(networkHeight([11n, 12n, 1000n], 10n, now - 1e6, now)).toBe(12n);
    expect(networkHeight([11n, 12n, 13n, 14n, 15n, 9999n], 10n, now - 1e6, now)).toBe(14n);
  });
  it('is capped at tip + elapsed / 30 and never below the tip', () => {
    expect(networkHeight([500n], 10n, now - 300, now)).toBe(20n);
    expect(networkHeight([5n], 10n, now, now)).toBe(10n);
    expect(networkHeight([500n], 10n, now + 60, now)).toBe(10n);
  });
});

describe('status members (§9)', () => {
  const link = (o: Partial<LinkView>): LinkView => ({ direction: 'inbound', remote: '1.2.3.4:5555', isOpen: true, state: 'open', peer: null, ...o });
  it('lists inbound sockets, handshaken outbound links, the external IP peers saw, and presence counters', () => {
    const m = networkStatusMembers({
      links: [
        link({ remote: '10.0.0.2:40000', isOpen: false, state: 'awaitHello' }),
        link({ direction: 'outbound', remote: 'seed:10234', peer: { observedOwnAddress: '8.8.4.4:61000' } }),
        link({ direction: 'outbound', remote: 'other:10234', peer: { observedOwnAddress: '8.8.4.4:62000' } }),
        link({ direction: 'outbound', remote: 'dialling:1', isOpen: false, state: 'awaitChallenge' }),
        link({ remote: 'gone:1', state: 'closed' }),
      ],
      presence: { presences: 3, masters: 2, relays: 1, clients: 4 },
      lastInboundAtMs: null,
      nowMs: 0,
      listeningPort: 10234,
    });
    expect(m).toEqual({
      'Network Clients': ['10.0.0.2:40000'],
      'Network Servers': ['seed:10234', 'other:10234'],
      'My External IP': '8.8.4.4',
      'My Listening Port': 10234,
      Connectable: true,
      Presences: 3,
      Masters: 2,
      Relays: 1,
      Clients: 4,
    });
  });
  it('Connectable for 300 s after the last inbound link', () => {
    const base = { links: [], presence: { presences: 0, masters: 0, relays: 0, clients: 0 }, listeningPort: 0 };
    expect(networkStatusMembers({ ...base, lastInboundAtMs: 0, nowMs: 300_000 }).Connectable).toBe(true);
    expect(networkStatusMembers({ ...base, lastInboundAtMs: 0, nowMs: 300_001 }).Connectable).toBe(false);
    expect(networkStatusMembers({ ...base, lastInboundAtMs: null, nowMs: 0, publicHost: 'x.example' })['My External IP']).toBe('x.example');
  });
});
