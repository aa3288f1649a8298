/**
 * Contacts, message history and the pending outbox in LMDB (issue 11; reference-rpc-messaging.md
 * §3.3, §3.4, §3.7). Sub-databases of src/state/schema.ts:
 *
 * - `contacts`: address (no checksum) → `{ record, extras }` (the handshake record and the JSON
 *   extras we keep: nickname, online);
 * - `messages`: `u8 len ‖ address ‖ u32 BE channel ‖ u64 BE sequence` → StoredMessage, so one
 *   contact's channel reads in order with a range scan (getLastMessages reads it backwards);
 * - `messageIds`: `u8 len ‖ address ‖ id` → the message key (duplicate check, receipts);
 * - `outbox`: address → that contact's pending entries in send order.
 *
 * Writes go through `store.write` (one transaction each). Message sequences are one counter in
 * `meta` (`messaging.seq`), strictly increasing across restarts.
 */
import type { Database } from 'lmdb';
import { SUB_DATABASES } from '../state/schema.js';
import type { Store } from '../state/store.js';
import type { ContactRecord } from './handshake.js';
import type { StoredMessage } from './json.js';
import type { OutboxEntry } from './outbox.js';

/** What a pending entry holds: the sealed frame (handshake, already signed) or the plain SpixiMessage, sealed when sent. */
export interface OutboxPayload {
  /** Encoded stream message, sent as is (contact request, accept, keys2). */
  frame: Uint8Array | null;
  /** SpixiMessage to seal with the session keys at send time (chat before the keys exist). */
  spixi: { type: number; data: Uint8Array | null; channel: number } | null;
  /** Message id (the receipt names it). */
  idBytes: Uint8Array;
}

export interface StoredContact {
  record: ContactRecord;
  extras: { nickname?: string; online?: boolean };
}

const SEQ_KEY = 'messaging.seq';

/** Normalises what msgpack hands back (Buffers, plain objects) to the record types. */
const u8 = (b: Uint8Array | null | undefined): Uint8Array | null => (b == null ? null : new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

function prefix(address: Uint8Array): Buffer {
  const p = Buffer.alloc(1 + address.length);
  p[0] = address.length;
  p.set(address, 1);
  return p;
}

function messageKey(address: Uint8Array, channel: number, seq: number): Buffer {
  const p = prefix(address);
  const k = Buffer.alloc(p.length + 12);
  p.copy(k);
  // Channels are int32 in the reference (−1 for non-chat receipts): bias so the order is numeric.
  k.writeUInt32BE((channel + 0x8000_0000) >>> 0, p.length);
  k.writeBigUInt64BE(BigInt(seq), p.length + 4);
  return k;
}

function channelRange(address: Uint8Array, channel: number): { start: Buffer; end: Buffer } {
  return { start: messageKey(address, channel, 0), end: messageKey(address, channel, Number.MAX_SAFE_INTEGER) };
}

function fixRecord(r: ContactRecord): ContactRecord {
  return {
    ...r,
    address: u8(r.address)!,
    publicKey: u8(r.publicKey),
    aesKey: u8(r.aesKey),
    chachaKey: u8(r.chachaKey),
    ecdhPrivateKey: u8(r.ecdhPrivateKey),
    mlkemPrivateKey: u8(r.mlkemPrivateKey),
    aesSalt: u8(r.aesSalt),
  };
}

function fixMessage(m: StoredMessage): StoredMessage {
  return { ...m, id: u8(m.id)!, senderAddress: u8(m.senderAddress) };
}

/**
 * The record as it is now: LMDB runs a write's callback later (its next transaction), and the
 * service keeps changing the same object (acceptContact sets `acceptSent` before writing it with
 * its frame); serialized then, an earlier write would commit that change without the frame.
 */
const snapshot = (c: StoredContact): StoredContact => structuredClone(c);

export class MessagingStore {
  private readonly contacts: Database<unknown, Buffer>;
  private readonly messages: Database<unknown, Buffer>;
  private readonly ids: Database<unknown, Buffer>;
  private readonly outbox: Database<unknown, Buffer>;
  private seq: number;

  constructor(private readonly store: Store) {
    this.contacts = store.declare(SUB_DATABASES.contacts);
    this.messages = store.declare(SUB_DATABASES.messages);
    this.ids = store.declare(SUB_DATABASES.messageIds);
    this.outbox = store.declare(SUB_DATABASES.outbox);
    const stored = store.meta.get(SEQ_KEY);
    this.seq = typeof stored === 'number' ? stored : 0;
  }

  getContact(address: Uint8Array): StoredContact | undefined {
    const v = this.contacts.get(Buffer.from(address)) as StoredContact | undefined;
    return v ? { record: fixRecord(v.record), extras: v.extras ?? {} } : undefined;
  }

  allContacts(): StoredContact[] {
    const out: StoredContact[] = [];
    for (const { value } of this.contacts.getRange()) {
      const v = value as StoredContact;
      out.push({ record: fixRecord(v.record), extras: v.extras ?? {} });
    }
    return out;
  }

  putContact(c: StoredContact): Promise<void> {
    const value = snapshot(c);
    return this.store.write(() => {
      void this.contacts.put(Buffer.from(c.record.address), value);
    });
  }

  /**
   * Writes the contact and its pending queue in one transaction: a handshake frame the new record
   * waits for (accept, keys2) is queued with it, or neither is (a kill -9 between two writes would
   * leave a contact waiting for a frame that was never queued, §3.5, §3.7).
   */
  putContactWithOutbox(c: StoredContact, entries: readonly OutboxEntry<OutboxPayload>[], history?: { channel: number; message: StoredMessage }): Promise<void> {
    const key = Buffer.from(c.record.address);
    // With `history` (addContact's requestAddSent entry, §3.1), that message goes in the same write.
    const putMessage = history ? this.messageWriter(c.record.address, history.channel, history.message) : null;
    const value = snapshot(c);
    return this.store.write(() => {
      void this.contacts.put(key, value);
      this.putOutbox(key, entries);
      putMessage?.();
    });
  }

  /** Removes the contact, its history and its pending messages (removeContact). */
  removeContact(address: Uint8Array): Promise<void> {
    const p = prefix(address);
    const end = Buffer.concat([p, Buffer.alloc(64, 0xff)]);
    return this.store.write(() => {
      void this.contacts.remove(Buffer.from(address));
      void this.outbox.remove(Buffer.from(address));
      for (const key of this.messages.getKeys({ start: p, end })) void this.messages.remove(key);
      for (const key of this.ids.getKeys({ start: p, end })) void this.ids.remove(key);
    });
  }

  /** Whether a message with this id from/to this contact is stored (duplicate check). */
  hasMessage(address: Uint8Array, id: Uint8Array): boolean {
    return this.ids.doesExist(Buffer.concat([prefix(address), id]));
  }

  /**
   * Appends a message to a contact's channel history; with `outbox`, writes that contact's pending
   * queue (holding the message) in the same transaction: a message kept in the history is also
   * kept for sending, even across a kill -9 (§3.7).
   */
  addMessage(address: Uint8Array, channel: number, m: StoredMessage, outbox?: readonly OutboxEntry<OutboxPayload>[]): Promise<void> {
    const putMessage = this.messageWriter(address, channel, m);
    return this.store.write(() => {
      putMessage();
      if (outbox) this.putOutbox(Buffer.from(address), outbox);
    });
  }

  /** Takes the message's sequence number now; the returned function stores it, inside a write. */
  private messageWriter(address: Uint8Array, channel: number, m: StoredMessage): () => void {
    const key = messageKey(address, channel, ++this.seq);
    const seq = this.seq;
    return () => {
      void this.messages.put(key, m);
      void this.ids.put(Buffer.concat([prefix(address), m.id]), key);
      void this.store.meta.put(SEQ_KEY, seq);
    };
  }

  /** Inside a write: one contact's queue (empty = removed). */
  private putOutbox(key: Buffer, entries: readonly OutboxEntry<OutboxPayload>[]): void {
    if (entries.length === 0) void this.outbox.remove(key);
    else void this.outbox.put(key, entries);
  }

  /** Changes a stored message by id (confirmed, errorSending); false when it is not stored. */
  async updateMessage(address: Uint8Array, id: Uint8Array, change: (m: StoredMessage) => void): Promise<StoredMessage | null> {
    const key = this.ids.get(Buffer.concat([prefix(address), id])) as Buffer | undefined;
    if (!key) return null;
    const v = this.messages.get(Buffer.from(key)) as StoredMessage | undefined;
    if (!v) return null;
    const m = fixMessage(v);
    change(m);
    await this.store.write(() => {
      void this.messages.put(Buffer.from(key), m);
    });
    return m;
  }

  /** The most recent `count` messages of a channel, oldest first (§3.9). */
  lastMessages(address: Uint8Array, channel: number, count: number): StoredMessage[] {
    if (count <= 0) return [];
    const { start, end } = channelRange(address, channel);
    const out: StoredMessage[] = [];
    for (const { value } of this.messages.getRange({ start: end, end: start, reverse: true, limit: count })) out.push(fixMessage(value as StoredMessage));
    return out.reverse();
  }

  /** The persisted outbox, every contact's queue. */
  loadOutbox(): [string, OutboxEntry<OutboxPayload>[]][] {
    const out: [string, OutboxEntry<OutboxPayload>[]][] = [];
    for (const { key, value } of this.outbox.getRange()) {
      const entries = (value as OutboxEntry<OutboxPayload>[]).map((e) => ({
        ...e,
        payload: {
          frame: u8(e.payload.frame),
          spixi: e.payload.spixi ? { ...e.payload.spixi, data: u8(e.payload.spixi.data) } : null,
          idBytes: u8(e.payload.idBytes)!,
        },
      }));
      out.push([Buffer.from(key).toString('hex'), entries]);
    }
    return out;
  }

  /** Writes one contact's queue (empty = removed). */
  saveOutbox(contactHex: string, entries: readonly OutboxEntry<OutboxPayload>[]): Promise<void> {
    const key = Buffer.from(contactHex, 'hex');
    return this.store.write(() => this.putOutbox(key, entries));
  }
}
