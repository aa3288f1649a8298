/**
 * Which relay a message to a contact goes through (src/messaging/service.ts contactRelayHosts): the
 * relay of the contact's most recently seen client device first. A client restarted on another
 * relay is a new device; its old device's presence, naming the relay it left, lingers for up to
 * 300 s, and taking it first held messages back until the client linked to that relay again.
 */
import { describe, expect, it } from 'vitest';
import { contactRelayHosts } from '../../src/messaging/service.js';

describe('contactRelayHosts', () => {
  it('orders the client devices by last keep-alive, newest first, once per host; other types and empty hosts are left out', () => {
    const devices = [
      { type: 'C', host: '127.0.0.1:4002', lastSeen: 100 }, // the device before the restart
      { type: 'C', host: '127.0.0.1:4001', lastSeen: 160 }, // after it, on another relay
      { type: 'M', host: '127.0.0.1:5000', lastSeen: 200 },
      { type: 'C', host: '', lastSeen: 300 },
      { type: 'C', host: '127.0.0.1:4001', lastSeen: 150 },
    ];
    expect(contactRelayHosts(devices)).toEqual(['127.0.0.1:4001', '127.0.0.1:4002']);
    expect(contactRelayHosts([])).toEqual([]);
  });
});
