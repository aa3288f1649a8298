import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { publicKeyToBytes } from '../../src/formats/rsa.js';
import { Address } from '../../src/formats/address.js';
import { createContactRequest, type Identity } from '../../src/messaging/handshake.js';
import { addressToJson, contactToJson, createStoredMessage, FriendMessageType, messageToJson, selectLastMessages } from '../../src/messaging/json.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const pub = publicKeyToBytes(privateKey);
const self: Identity = { address: Address.fromPublicKey(pub).addressNoChecksum, publicKey: pub, privateKey };
const peer = new Uint8Array(45).fill(7);
peer[0] = 1;

describe('Contact JSON', () => {
  it('has every interface.md member and the reference members in order, no secrets', () => {
    const { contact } = createContactRequest(self, peer, 1762490000);
    contact.aesKey = new Uint8Array(32).fill(1);
    const j = contactToJson(contact);
    expect(Object.keys(j)).toEqual([
      'keyGeneratedTime', 'online', 'isTyping', 'forcePush', 'addedTimestamp', 'users', 'groups', 'channels', 'metaData',
      'approved', 'handshakePushed', 'lastReceivedHandshakeMessageTimestamp', 'pendingDeletion', 'state',
      'updatedSectorNodes', 'sectorNodes', 'requestedPresence', 'updatedStreamingNodes', 'relayNode', 'protocolVersion',
      'streamCapabilities', 'supportedProtocols', 'walletAddress', 'publicKey', 'bot', 'handshakeStatus', 'nickname',
    ]);
    for (const k of ['walletAddress', 'publicKey', 'nickname', 'online', 'addedTimestamp', 'handshakeStatus', 'approved', 'metaData']) expect(j).toHaveProperty(k);
    const addr = new Address(peer);
    expect(j.nickname).toBe(addr.base58Address);
    expect((j.walletAddress as { base58Address: string }).base58Address).toBe(addr.base58Address);
    expect(j.publicKey).toBeNull();
    expect(j.addedTimestamp).toBe(1762490000);
    expect(j.handshakeStatus).toBe(0);
    expect(Object.keys(j.metaData as object)).toEqual(['botInfo', 'lastReceivedMessageIds', 'unreadMessageCount', 'lastMessage', 'lastMessageChannel']);
    expect(JSON.stringify(j)).not.toContain(Buffer.from(contact.aesKey).toString('base64'));
    expect(JSON.stringify(j)).not.toMatch(/aesKey|chachaKey|Private|Salt/);
  });

  it('approved is interface.md\'s "secure channel established" unless the reference flag is asked for', () => {
    const { contact } = createContactRequest(self, peer, 1);
    expect(contactToJson(contact).approved).toBe(false); // interface.md: addContact gives approved false
    expect(contactToJson(contact, { referenceApproved: true }).approved).toBe(true); // QuIXI: requester approved at once
    contact.aesKey = new Uint8Array(32);
    contact.chachaKey = new Uint8Array(32);
    expect(contactToJson(contact).approved).toBe(true);
    contact.approved = false; // keys but no consent (cannot happen through the handshake)
    expect(contactToJson(contact).approved).toBe(false);
  });

  it('Address object: members, Base64 forms, version and its text QUIRK', () => {
    const a = addressToJson(peer);
    expect(Object.keys(a)).toEqual(['version', 'addressWithChecksum', 'base58Address', 'addressNoChecksum', 'sectorPrefix', 'nonce', 'pubKey']);
    expect(a.version).toBe(1);
    expect(Buffer.from(a.addressWithChecksum, 'base64')).toHaveLength(48);
    expect(Buffer.from(a.sectorPrefix, 'base64')).toHaveLength(10);
    expect(addressToJson(peer, { textQuirk: true }).version).toBe(0);
  });
});

describe('Message JSON', () => {
  it('has every interface.md member and the reference members in order', () => {
    const m = createStoredMessage({ id: new Uint8Array(16).fill(2), message: '', timestamp: 5, localSender: true, type: FriendMessageType.requestAddSent, senderNick: 'n', receivedTimestamp: 6 });
    const j = messageToJson(m);
    expect(Object.keys(j)).toEqual([
      'message', 'timestamp', 'localSender', 'read', 'confirmed', 'sent', 'errorSending', 'type', 'transferId', 'completed',
      'filePath', 'fileSize', 'senderAddress', 'senderNick', 'receivedTimestamp', 'transactionId', 'payableDataLen', 'reactions', 'id',
    ]);
    expect(j.id).toBe(Buffer.alloc(16, 2).toString('base64'));
    expect(j.type).toBe(11);
    expect(j.senderAddress).toBeNull();
    expect(JSON.stringify(j)).toBe(
      '{"message":"","timestamp":5,"localSender":true,"read":false,"confirmed":false,"sent":false,"errorSending":false,"type":11,"transferId":"","completed":false,"filePath":"","fileSize":0,"senderAddress":null,"senderNick":"n","receivedTimestamp":6,"transactionId":"","payableDataLen":0,"reactions":{},"id":"AgICAgICAgICAgICAgICAg=="}',
    );
  });

  it('selectLastMessages: the last N, oldest first', () => {
    expect(selectLastMessages([1, 2, 3, 4], 2)).toEqual([3, 4]);
    expect(selectLastMessages([1, 2], 10)).toEqual([1, 2]);
    expect(selectLastMessages([1, 2], 0)).toEqual([]);
  });
});
