/**
 * The messaging service of a client node (issue 11; interface.md §Messaging, DESIGN decision 6,
 * reference-rpc-messaging.md §3.1, §3.5–§3.10, reference-network.md §7): contacts and history in
 * LMDB (store.ts), the handshake and encryption of handshake.ts, the pending outbox of §3.7
 * (persisted, retried every PENDING_RETRY_INTERVAL_S, expired after 5 days with `errorSending`),
 * receipts that confirm, and delivery through relays:
 *
 * - the recipient's relay is the host of its client presence (§3.10 "where is contact X = which
 *   relay holds X's presence"); a client asks its links for a presence it does not hold (its relay
 *   asks the masters, which hold the client keep-alives relays announce to them);
 * - relays forward only to clients connected to them (no relay-to-relay hop, §10 keep 7), so the
 *   sender links to the recipient's relay (dialled from the presence host, kept like a configured
 *   peer once reached, handed to the dialer again after a minute while not linked) and sends
 *   `s2data` through it; with no route the message stays in the outbox;
 * - a relay's "not connected" answer marks the contact offline and asks for a fresh presence; the
 *   next pass retries (§7.1 step 6).
 *
 * Incoming frames that fail authentication (tampered, replayed, wrongly signed, not for us) are
 * dropped, counted and logged at warn; never stored. Each accepted event goes to the node bus
 * (`MessagingEvents`, streamed on `/events`) and to the QuIXI message-queue bridge.
 */
import type { KeyObject } from 'node:crypto';
import { toBase64 } from '../formats/bytes.js';
import { privateKeyFromBytes } from '../formats/rsa.js';
import type { MessagingCryptoItem, MessagingCryptoResult } from '../pool/index.js';
import { Address } from '../formats/address.js';
import type { Emitter } from '../events.js';
import type { Logger } from '../log/logger.js';
import type { Link } from '../network/link.js';
import type { NodeNetwork } from '../network/node-network.js';
import { MessageCode } from '../network/protocol/codes.js';
import { KEEPALIVE_INTERVAL_SECONDS, type PresenceAddress } from '../network/presence.js';
import { MessagingError } from './errors.js';
import {
  acceptContact,
  buildRelayError,
  HandshakeId,
  createContactRequest,
  isChannelEstablished,
  MESSAGE_ID_LENGTH,
  publishesMsgReceived,
  receiveFrame,
  sealMessage,
  type ContactRecord,
  type Identity,
  type ReceiveResult,
} from './handshake.js';
import { secureRandom } from './crypto.js';
import { contactToJson, createStoredMessage, FriendMessageType, messageToJson, type ContactJson, type MessageJson, type StoredMessage } from './json.js';
import type { MqBridge } from './mq/bridge.js';
import { streamEventObject, type ReceivedForMq } from './mq/payload.js';
import { Outbox, PENDING_RETRY_INTERVAL_S, sendFlagsFor, type OutboxEntry } from './outbox.js';
import { buildAppDataMessage, SpixiMessageCode, type SpixiMessage } from './spixi-message.js';
import { decodeStreamMessage, EncryptionType, encodeStreamMessage, streamMessageChecksum, StreamMessageCode, type StreamMessage } from './stream-message.js';
import { MessagingStore, type OutboxPayload, type StoredContact } from './store.js';

/** Largest payload of one chat message or app message, in bytes: well inside one s2data (1 MiB, reference-network §2) after both encryption layers. */
export const MAX_MESSAGE_PAYLOAD_BYTES = 512 * 1024;
/** Avatars of this size or more are not published on the MQ bridge (QuIXI StreamProcessor: < 500 000 bytes). */
export const MAX_PUBLISHED_AVATAR_BYTES = 500_000;
/** getLastMessages: largest `count` served in one answer. */
export const MAX_LAST_MESSAGES = 1000;
/** Channels are int32 in the reference. */
export const MAX_CHANNEL = 0x7fff_ffff;
/** A presence asked of our links is asked again at most this often (the outbox retries every 5 s). */
const PRESENCE_ASK_INTERVAL_MS = 3_000;
/** A contact's relay host is handed to the dialer again at most this often (ms). */
const RELAY_REDIAL_MS = 60_000;
/** Contacts' `online` is brought up to date with their presence this often (QuIXI Node.cs mainLoop: 2.5 s). */
export const FRIEND_STATUS_INTERVAL_MS = 2_500;
/**
 * A contact with no presence goes offline this long after it was last heard of (a frame, a
 * keep-alive), and a missing or stale presence is asked for at most this often (Core
 * CoreConfig.requestPresenceTimeout, 30 s; QuIXI updateFriendStatuses).
 */
export const PRESENCE_TIMEOUT_S = 30;
/** Extra passes after a route was asked for (presence answer, link to the contact's relay), in ms. */
const ROUTE_RETRY_DELAYS_MS: readonly number[] = [100, 300, 700, 1500];

/** An event of the bus: the contact (Base58) and the decrypted message as QuIXI's newer shape shows it (§1.9 B). */
export interface MessagingEventPayload {
  contact: string;
  message: Record<string, unknown>;
}

/** Events of the messaging service on the node bus (src/node/events.ts). */
export interface MessagingEvents {
  /** An incoming contact request (RequestAdd2). */
  contactRequest: MessagingEventPayload;
  /** The handshake completed on our side: the accept arrived (requester) or keys2 did (acceptor). */
  contactAccepted: MessagingEventPayload & { contactJson: Record<string, unknown> };
  /** A chat message (stored). */
  chatMessage: MessagingEventPayload;
  /** A receipt for one of our messages (msgReceived). */
  messageReceipt: { contact: string; id: string; channel: number; confirmed: boolean };
  /** App data (code 21), not stored. */
  appData: MessagingEventPayload;
  /** App protocol data (code 45), not stored. */
  appProtocolData: MessagingEventPayload;
  /** Any other message (sendSpixiMessage / sendAppMessage types), not stored. */
  spixiMessage: MessagingEventPayload;
}

/** A refusal of an operation, with its exact interface.md / reference text (-32602). */
export class MessagingRequestError extends Error {
  readonly code = 'ERR_MESSAGING_REQUEST';
}

/** DESIGN decision 6. */
export const NOT_ESTABLISHED = 'secure channel with the contact is not established';
export const NO_CONTACT = "contact doesn't exist";
export const ALREADY_ADDED = 'contact already added';

export interface MessagingServiceOptions {
  store: import('../state/store.js').Store;
  /** The wallet key: address without checksum, serialized public key, private key bytes or KeyObject. */
  identity: Identity;
  network: NodeNetwork | undefined;
  events: Emitter<MessagingEvents>;
  log: Logger;
  /** Unix ms. */
  now: () => number;
  bridge?: MqBridge | null;
  retryIntervalMs?: number;
  /**
   * The node pool's `messagingCrypto` task: contact requests, accepts and signed incoming frames
   * (RSA-4096, secp521r1, ML-KEM-1024) run in a worker; absent = on this thread (tests).
   */
  crypto?: (items: readonly MessagingCryptoItem[]) => Promise<MessagingCryptoResult[]>;
  /** Replaces delivery through the network (in-process tests, the benchmark): true when the frame left. */
  transport?: (recipient: Uint8Array, frame: Uint8Array) => boolean;
  /**
   * Our nickname, sent to contacts in the nick message (`--nick`). Default '': the nick message is
   * still sent, empty, as the reference does with no name set (contacts then show our address).
   */
  nick?: string;
}

export interface MessagingStats {
  received: number;
  dropped: number;
  sent: number;
  expired: number;
}

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const addrText = (a: Uint8Array): string => new Address(a).base58Address;
/**
 * Drops the entries of a when-map (ms) at or before `limit`: past their interval they decide
 * nothing, and the hosts and addresses they name (contacts' relays, removed contacts) would pile up.
 */
function forgetOlder(at: Map<string, number>, limit: number): void {
  for (const [k, t] of at) if (t <= limit) at.delete(k);
}

/** `sentAt`'s key: a pending entry's contact and id. */
const sentKey = (contactKey: string, idHex: string): string => `${contactKey}/${idHex}`;
/** The outbox id of our contact request, whose message id is [0] (§3.5). */
const REQUEST_ENTRY_ID = hex(Uint8Array.of(0));

/**
 * The relay hosts a contact's presence names (its client devices' hosts, reference-network §3.5),
 * the most recently seen device first: after a restart a client is a new device on its new relay,
 * and its old device's entry, naming the relay it left, stays until it expires (300 s).
 */
export function contactRelayHosts(devices: Iterable<{ type: string; host: string; lastSeen: number }>): string[] {
  const hosts: string[] = [];
  for (const d of [...devices].filter((d) => d.type === 'C' && d.host !== '').sort((a, b) => b.lastSeen - a.lastSeen)) {
    if (!hosts.includes(d.host)) hosts.push(d.host);
  }
  return hosts;
}

export class MessagingService {
  readonly stats: MessagingStats = { received: 0, dropped: 0, sent: 0, expired: 0 };
  readonly identity: Identity;
  private readonly db: MessagingStore;
  /** Handshake frames (the only prebuilt frames) jump the queue: queued chats wait for the keys they create (§3.5). */
  private readonly outbox = new Outbox<OutboxPayload>((e) => e.payload.frame != null);
  private readonly contacts = new Map<string, StoredContact>();
  private readonly presenceAskedAt = new Map<string, number>();
  /**
   * Per contact (hex): relay hosts that answered "not connected" for it, with when (seconds). A
   * device of the contact on such a host, last seen before that answer, is no route until a newer
   * presence names it again (reference-network §7.1 step 6: retry via a fresh presence lookup).
   */
  private readonly notConnectedAt = new Map<string, Map<string, number>>();
  /** Relay hosts of contacts asked of the dialer (`connect`), with when (ms): asked again after RELAY_REDIAL_MS. */
  private readonly dialledAt = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private statusTimer: NodeJS.Timeout | null = null;
  /** Per contact (hex): when it was last heard of, unix seconds (a frame from it, its newest keep-alive): Core's `updatedStreamingNodes`. */
  private readonly lastHeardS = new Map<string, number>();
  /** Per contact (hex): when the status loop last asked for its presence (ms). */
  private readonly presenceRefreshedAt = new Map<string, number>();
  /** The retry pass running now, and the one queued behind it (forced if any of its callers asked). */
  private passRunning: Promise<void> | null = null;
  private passQueued: { force: boolean; done: Promise<void> } | null = null;
  private kicking = false;
  /**
   * When each pending entry was last sent (ms), by contact and id hex (`sentKey`): the handshake's
   * and the nick's fixed ids ([0]–[2], [5]) are the same for every contact.
   */
  private readonly sentAt = new Map<string, number>();
  /**
   * Entries sent at least once: a pass that runs while `enqueue` persists a new entry may send it
   * first, and `enqueue` must not send it a second time.
   */
  private readonly sentEntries = new WeakSet<OutboxEntry<OutboxPayload>>();
  private readonly retryMs: number;
  /** Frames are handled one at a time: a contact record changes through one frame at a time. */
  private inbound: Promise<void> = Promise.resolve();

  /** The identity as the pool task takes it (private key as PKCS#8 DER). */
  private readonly poolIdentity: MessagingCryptoItem['identity'];
  /** Our nick message's payload (UTF-8 of `nick`; empty without one). */
  private readonly nickBytes: Uint8Array;

  constructor(private readonly o: MessagingServiceOptions) {
    this.identity = o.identity;
    const pk = o.identity.privateKey;
    const der = pk instanceof Uint8Array ? privateKeyFromBytes(pk).export({ format: 'der', type: 'pkcs8' }) : (pk as KeyObject).export({ format: 'der', type: 'pkcs8' });
    this.poolIdentity = { address: o.identity.address, publicKey: o.identity.publicKey, privateKeyDer: new Uint8Array(der) };
    this.retryMs = o.retryIntervalMs ?? PENDING_RETRY_INTERVAL_S * 1000;
    this.nickBytes = new Uint8Array(Buffer.from(o.nick ?? '', 'utf8'));
    this.db = new MessagingStore(o.store);
    // A contact stored online gets PRESENCE_TIMEOUT_S from start-up for its presence to be asked
    // for and arrive, instead of flipping offline (and back) at the first status update.
    for (const c of this.db.allContacts()) {
      this.contacts.set(hex(c.record.address), c);
      if (c.extras.online) this.lastHeardS.set(hex(c.record.address), this.nowSeconds());
    }
    this.outbox.load(this.db.loadOutbox());
  }

  /** A relay's answer for a message whose recipient is not connected to it (NodeNetworkOptions.relayError). */
  static relayError(message: Uint8Array, nowSeconds: number): { recipient: Uint8Array; message: Uint8Array } | null {
    let m: StreamMessage;
    try {
      m = decodeStreamMessage(message);
    } catch {
      return null;
    }
    // A client-sent error is dropped (§3.10), never answered.
    if (m.type === StreamMessageCode.error || m.sender === null) return null;
    return { recipient: m.sender, message: encodeStreamMessage(buildRelayError(m, nowSeconds)) };
  }

  start(): void {
    if (this.o.network) this.o.network.onStreamMessage = (link, recipient, bytes) => this.receive(link, recipient, bytes);
    this.timer = setInterval(() => void this.pass(), this.retryMs);
    this.timer.unref();
    if (this.o.network) {
      // A failed update (the store closing under it at shutdown) is logged, never an unhandled rejection.
      this.statusTimer = setInterval(() => void this.updateFriendStatuses().catch((err: unknown) => this.o.log.error({ err }, 'contact status update failed')), FRIEND_STATUS_INTERVAL_MS);
      this.statusTimer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.statusTimer) clearInterval(this.statusTimer);
    this.timer = this.statusTimer = null;
    if (this.o.network) this.o.network.onStreamMessage = null;
    await this.inbound;
  }

  /** The message-queue bridge's counters, or null without a bridge. */
  bridgeStats(): { published: number; dropped: number } | null {
    return this.o.bridge ? this.o.bridge.stats : null;
  }

  private nowSeconds(): number {
    return Math.floor(this.o.now() / 1000);
  }

  // ---- operations ---------------------------------------------------------------------------

  /** Parses a Base58 address (with checksum); -32602 on a bad one. */
  static parseAddress(text: string): Uint8Array {
    try {
      return Address.fromText(text).addressNoChecksum;
    } catch (e) {
      throw new MessagingRequestError(`Invalid address ${JSON.stringify(text)}: ${(e as Error).message}`);
    }
  }

  private contactOf(address: Uint8Array): StoredContact {
    const c = this.contacts.get(hex(address));
    if (!c) throw new MessagingRequestError(NO_CONTACT);
    return c;
  }

  contactJson(c: StoredContact): ContactJson {
    return contactToJson(c.record, { nickname: c.extras.nickname, online: c.extras.online ?? false });
  }

  /** `contacts`: every contact, sorted by nickname (§3.1). */
  listContacts(): ContactJson[] {
    return [...this.contacts.values()].map((c) => this.contactJson(c)).sort((a, b) => a.nickname.localeCompare(b.nickname));
  }

  getContact(address: Uint8Array): ContactJson {
    return this.contactJson(this.contactOf(address));
  }

  async addContact(address: Uint8Array): Promise<ContactJson> {
    if (this.contacts.has(hex(address))) throw new MessagingRequestError(ALREADY_ADDED);
    if (Buffer.compare(Buffer.from(address), Buffer.from(this.identity.address)) === 0) throw new MessagingRequestError('Invalid address: a node cannot add itself as a contact');
    const now = this.nowSeconds();
    const { contact, request } = await this.contactRequest(address, now);
    const stored: StoredContact = { record: contact, extras: {} };
    this.contacts.set(hex(address), stored);
    // §3.1: a local message of type requestAddSent (11), empty text, channel 0, written with the
    // contact and its request (one write: a kill -9 between two would lose the history entry).
    const message = createStoredMessage({ id: secureRandom(MESSAGE_ID_LENGTH), message: '', timestamp: now, localSender: true, type: FriendMessageType.requestAddSent, senderNick: '', receivedTimestamp: now });
    await this.putContactWithFrame(stored, request, { channel: 0, message });
    return this.contactJson(stored);
  }

  async acceptContact(address: Uint8Array): Promise<ContactJson> {
    const c = this.contactOf(address);
    const accept = await this.accept(c, this.nowSeconds());
    if (accept) await this.putContactWithFrame(c, accept);
    else await this.db.putContact(c);
    return this.contactJson(c);
  }

  async removeContact(address: Uint8Array): Promise<ContactJson> {
    const c = this.contactOf(address);
    const json = this.contactJson(c);
    this.contacts.delete(hex(address));
    this.notConnectedAt.delete(hex(address));
    this.lastHeardS.delete(hex(address));
    this.presenceRefreshedAt.delete(hex(address));
    this.outbox.clear(hex(address));
    await this.db.removeContact(address);
    return json;
  }

  /** `sendChatMessage`: stored, queued until its receipt (§3.1, §3.7). Returns the contact (reference). */
  async sendChatMessage(address: Uint8Array, text: string, channel: number): Promise<ContactJson> {
    checkChannel(channel);
    const c = this.contactOf(address);
    const data = Buffer.from(text, 'utf8');
    checkPayload(data.length);
    const now = this.nowSeconds();
    const id = secureRandom(MESSAGE_ID_LENGTH);
    // Kept in the history and queued for sending in one write (store.addMessage with the queue).
    const stored = createStoredMessage({ id, message: text, timestamp: now, localSender: true, type: FriendMessageType.standard, senderNick: '', receivedTimestamp: now, payableDataLen: data.length });
    await this.enqueue(address, this.spixiEntry({ type: SpixiMessageCode.chat, data, channel }, id, now), (queue) => this.db.addMessage(address, channel, stored, queue));
    return this.contactJson(c);
  }

  /**
   * `sendSpixiMessage` (QuIXI: queued and retried, nothing stored) and `sendAppMessage`
   * (interface.md: fire-and-forget, needs the secure channel, DESIGN decision 6).
   */
  async sendSpixiMessage(address: Uint8Array, type: number, data: Uint8Array, channel: number, o: { requireChannel: boolean }): Promise<ContactJson> {
    checkChannel(channel, true);
    if (!Number.isInteger(type) || type < 0 || type > 0xff) throw new MessagingRequestError(`Invalid type ${type}: an AppMessageCode is an integer 0–255`);
    checkPayload(data.length);
    const c = this.contactOf(address);
    const spixi: SpixiMessage = { type, data, channel };
    if (o.requireChannel) {
      if (!isChannelEstablished(c.record)) throw new MessagingRequestError(NOT_ESTABLISHED);
      this.sendNow(c.record, spixi, { requireRcvConfirmation: false });
      return this.contactJson(c);
    }
    await this.enqueueSpixi(address, spixi, secureRandom(MESSAGE_ID_LENGTH), this.nowSeconds());
    return this.contactJson(c);
  }

  /** `sendAppData` (§3.8): app data by session id or protocol id, fire-and-forget. */
  sendAppData(address: Uint8Array, target: { appId?: string; protocolId?: string }, text: string): ContactJson {
    const c = this.contactOf(address);
    const data = Buffer.from(text, 'utf8');
    checkPayload(data.length);
    const spixi = buildAppDataMessage(target, data);
    if (!isChannelEstablished(c.record)) throw new MessagingRequestError(NOT_ESTABLISHED);
    this.sendNow(c.record, spixi, { requireRcvConfirmation: false });
    return this.contactJson(c);
  }

  /** `getLastMessages` (§3.9). */
  lastMessages(address: Uint8Array, count: number, channel: number): MessageJson[] {
    this.contactOf(address);
    return this.db.lastMessages(address, channel, Math.min(count, MAX_LAST_MESSAGES)).map(messageToJson);
  }

  // ---- the expensive handshake steps, in the worker pool when there is one --------------------

  private async inPool(item: MessagingCryptoItem): Promise<MessagingCryptoResult> {
    const [r] = await this.o.crypto!([item]);
    if (!r) throw new Error('messagingCrypto returned no result');
    return r;
  }

  private async contactRequest(address: Uint8Array, now: number): Promise<{ contact: ContactRecord; request: StreamMessage }> {
    if (!this.o.crypto) return createContactRequest(this.identity, address, now);
    const r = await this.inPool({ op: 'request', identity: this.poolIdentity, contactAddress: address, now });
    if (!r.ok) throw new MessagingRequestError(`Invalid address: ${r.message}`);
    if (r.op !== 'request') throw new Error('messagingCrypto answered another operation');
    return r;
  }

  /** acceptContact on the stored record (replaced by the worker's copy). */
  private async accept(c: StoredContact, now: number): Promise<StreamMessage | null> {
    if (!this.o.crypto) return acceptContact(this.identity, c.record, now);
    const r = await this.inPool({ op: 'accept', identity: this.poolIdentity, contact: c.record, now });
    if (!r.ok) throw new MessagingError(r.code, r.message);
    if (r.op !== 'accept') throw new Error('messagingCrypto answered another operation');
    c.record = r.contact;
    return r.accept;
  }

  /** Authenticates a frame: signed ones (requests, rsa2) in the pool, the others (spixi2 chat, receipts) here. */
  private async authenticate(m: StreamMessage, bytes: Uint8Array, contact: ContactRecord | undefined): Promise<ReceiveResult> {
    const now = this.nowSeconds();
    if (!this.o.crypto || m.signature === null) return receiveFrame(this.identity, contact, m, { now, nick: this.nickBytes, isDuplicate: (c, id) => this.db.hasMessage(c.address, id) });
    const r = await this.inPool({ op: 'receive', identity: this.poolIdentity, contact, frame: bytes, now, nick: this.nickBytes });
    if (!r.ok) throw new MessagingError(r.code, r.message);
    if (r.op !== 'receive') throw new Error('messagingCrypto answered another operation');
    return { ...r.result, ignored: r.ignored ? new MessagingError(r.ignored.code, r.ignored.message) : null };
  }

  // ---- sending ------------------------------------------------------------------------------

  /** The outbox entry of a handshake frame (request, accept, keys2): sent as is until its receipt. */
  private frameEntry(m: StreamMessage): OutboxEntry<OutboxPayload> {
    return { id: hex(m.id), timestamp: m.timestamp, flags: sendFlagsFor(SpixiMessageCode.requestAdd2), payload: { frame: encodeStreamMessage(m), spixi: null, idBytes: m.id } };
  }

  /**
   * Saves a contact record with the handshake frame it now waits on (request, accept) queued, in
   * one write (store.putContactWithOutbox: a kill -9 between two writes would leave the record
   * waiting for a frame never queued), then sends the frame if nothing is ahead of it.
   */
  private putContactWithFrame(c: StoredContact, m: StreamMessage, history?: { channel: number; message: StoredMessage }): Promise<void> {
    return this.enqueue(c.record.address, this.frameEntry(m), (queue) => this.db.putContactWithOutbox(c, queue, history));
  }

  /**
   * Our nickname to a contact (Ixian-Core CoreStreamProcessor.sendNickname): SpixiMessage nick with
   * id [5], type info, queued until its receipt, never pushed (§3.7 step 3). It goes under the
   * session keys (spixi2), so it waits in the outbox until they exist; one per contact is queued.
   */
  private sendOwnNick(address: Uint8Array): Promise<void> {
    return this.enqueue(address, this.ownNickEntry());
  }

  private ownNickEntry(): OutboxEntry<OutboxPayload> {
    return this.spixiEntry({ type: SpixiMessageCode.nick, data: this.nickBytes, channel: 0 }, Uint8Array.of(HandshakeId.nick), this.nowSeconds());
  }

  private spixiEntry(spixi: SpixiMessage, id: Uint8Array, now: number): OutboxEntry<OutboxPayload> {
    return { id: hex(id), timestamp: now, flags: sendFlagsFor(spixi.type), payload: { frame: null, spixi: { type: spixi.type, data: spixi.data, channel: spixi.channel }, idBytes: id } };
  }

  private async enqueueSpixi(address: Uint8Array, spixi: SpixiMessage, id: Uint8Array, now: number): Promise<void> {
    await this.enqueue(address, this.spixiEntry(spixi, id, now));
  }

  /**
   * Queues `entry` for `address` and persists the queue, alone or, with `persist`, in one write with
   * what the entry belongs to (a contact record, a stored message); then sends it if nothing is ahead.
   */
  private async enqueue(address: Uint8Array, entry: OutboxEntry<OutboxPayload>, persist?: (queue: OutboxEntry<OutboxPayload>[]) => Promise<void>): Promise<void> {
    const key = hex(address);
    const { sendNow } = this.outbox.enqueue(key, entry);
    await (persist ? persist(this.outbox.queue(key)) : this.persistOutbox(key));
    // A pass during the write may have sent it already, or its receipt may even have come back.
    if (sendNow && !this.sentEntries.has(entry) && this.outbox.queue(key).includes(entry)) this.trySend(key, entry);
  }

  private persistOutbox(key: string): Promise<void> {
    return this.db.saveOutbox(key, this.outbox.queue(key));
  }

  /** Sends a pending entry now if a route exists; false leaves it for the next pass. */
  private trySend(contactKey: string, e: OutboxEntry<OutboxPayload>): boolean {
    const ok = this.trySendNow(contactKey, e);
    if (ok) {
      this.sentAt.set(sentKey(contactKey, e.id), this.o.now());
      this.sentEntries.add(e);
    }
    return ok;
  }

  private trySendNow(contactKey: string, e: OutboxEntry<OutboxPayload>): boolean {
    const c = this.contacts.get(contactKey);
    if (!c) return false;
    let frame = e.payload.frame;
    if (frame === null) {
      if (!e.payload.spixi || !isChannelEstablished(c.record)) return false;
      const s = e.payload.spixi;
      frame = encodeStreamMessage(sealMessage(this.identity, c.record, { type: s.type, data: s.data, channel: s.channel }, e.timestamp, { id: e.payload.idBytes }));
    }
    return this.transmit(c.record.address, frame);
  }

  private sendNow(contact: ContactRecord, spixi: SpixiMessage, options: { requireRcvConfirmation: boolean }): boolean {
    const m = sealMessage(this.identity, contact, spixi, this.nowSeconds(), options);
    return this.transmit(contact.address, encodeStreamMessage(m));
  }

  /** Through a link to the recipient's relay; false (nothing sent) without one. */
  private transmit(recipient: Uint8Array, frame: Uint8Array): boolean {
    if (this.o.transport) {
      const sent = this.o.transport(recipient, frame);
      if (sent) this.stats.sent++;
      return sent;
    }
    const net = this.o.network;
    if (!net) return false;
    const link = this.routeTo(net, recipient);
    if (!link) return false;
    const ok = net.sendStream(link, recipient, frame);
    if (ok) this.stats.sent++;
    return ok;
  }

  /**
   * The devices of a contact's presence that may still be reached: a device on a relay that
   * answered "not connected" for it counts again only once a newer keep-alive names it.
   */
  private liveDevices(net: NodeNetwork, address: Uint8Array): PresenceAddress[] {
    const entry = net.peers.presence.get(address);
    const refused = this.notConnectedAt.get(hex(address));
    return entry ? [...entry.devices.values()].filter((d) => !refused || (refused.get(d.host) ?? -Infinity) <= d.lastSeen) : [];
  }

  private routeTo(net: NodeNetwork, recipient: Uint8Array): Link | null {
    const hosts = contactRelayHosts(this.liveDevices(net, recipient));
    if (hosts.length === 0) {
      this.askPresence(net, recipient);
      return null;
    }
    const relays = net.peers.links(['R']);
    for (const host of hosts) {
      const link = relays.find((l) => l.isOpen && (l.peer?.endpoint === host || l.remote === host));
      if (link) return link;
    }
    for (const host of hosts) {
      // The dialer keeps a relay it reached; one it never reached it drops after a few dials
      // (peer-network CONNECT_DIAL_ATTEMPTS): asked again later, a relay that came back is found.
      const at = this.dialledAt.get(host);
      if (at !== undefined && this.o.now() - at < RELAY_REDIAL_MS) continue;
      forgetOlder(this.dialledAt, this.o.now() - RELAY_REDIAL_MS);
      this.dialledAt.set(host, this.o.now());
      try {
        net.peers.connect(host);
        this.kick();
        this.o.log.info({ contact: addrText(recipient), relay: host }, "linking to the contact's relay");
      } catch (err) {
        this.o.log.warn({ contact: addrText(recipient), host, err: (err as Error).message }, "the contact's presence names an unusable relay host");
      }
    }
    // No link to the relays it names (gone, or not reached yet): the contact may have moved to
    // another relay since; a fresh presence names it (§7.1 steps 3 and 6).
    this.askPresence(net, recipient);
    return null;
  }

  private askPresence(net: NodeNetwork, address: Uint8Array): void {
    const key = hex(address);
    const now = this.o.now();
    if (now - (this.presenceAskedAt.get(key) ?? -Infinity) < PRESENCE_ASK_INTERVAL_MS) return;
    forgetOlder(this.presenceAskedAt, now - PRESENCE_ASK_INTERVAL_MS);
    this.presenceAskedAt.set(key, now);
    for (const l of net.peers.links()) l.send({ code: MessageCode.getPresence2, address });
    this.kick();
  }

  /**
   * A route was asked for (a presence, a link to a relay): passes shortly after, instead of only at
   * the next 5-second retry, so a first message does not wait for the retry timer.
   */
  private kick(): void {
    if (this.kicking) return;
    this.kicking = true;
    const delays = ROUTE_RETRY_DELAYS_MS;
    const step = (i: number): void => {
      if (i >= delays.length || this.timer === null) {
        this.kicking = false;
        return;
      }
      const t = setTimeout(() => {
        void this.pass().finally(() => step(i + 1));
      }, delays[i]);
      t.unref();
    };
    step(0);
  }

  /**
   * QuIXI's updateFriendStatuses (Node.cs mainLoop, every 2.5 s; reference-quixi-events §1.7): a
   * contact whose presence we hold goes online, one with none goes offline once nothing was
   * heard of it for PRESENCE_TIMEOUT_S; each flip is published as FriendStatusUpdate. Relays push
   * no keep-alives to clients here (no attachEvent), so a presence that is missing, or older than
   * a client's keep-alive interval, is asked for again, at most every PRESENCE_TIMEOUT_S.
   */
  async updateFriendStatuses(): Promise<void> {
    const net = this.o.network;
    if (!net) return;
    const nowS = this.nowSeconds();
    for (const [key, c] of [...this.contacts]) {
      // A relay's "not connected" answer removes the contact's whole presence in the reference
      // (CoreStreamProcessor.receiveData → PresenceList.removeAddressEntry): no device last seen
      // before it counts until a newer keep-alive names it.
      const refusedAt = Math.max(-Infinity, ...(this.notConnectedAt.get(key)?.values() ?? []));
      const devices = this.liveDevices(net, c.record.address).filter((d) => d.type === 'C' && d.lastSeen >= refusedAt);
      const newest = Math.max(-Infinity, ...devices.map((d) => d.lastSeen));
      if (newest > (this.lastHeardS.get(key) ?? -Infinity)) this.lastHeardS.set(key, newest);
      const online = c.extras.online === true;
      if (devices.length === 0 || nowS - newest > KEEPALIVE_INTERVAL_SECONDS.C) {
        // An online contact whose presence is missing is within its grace: asked as often as a
        // route is (a relay that does not hold it asks the masters and answers the next question).
        const every = online && devices.length === 0 ? PRESENCE_ASK_INTERVAL_MS : PRESENCE_TIMEOUT_S * 1000;
        const at = this.presenceRefreshedAt.get(key) ?? -Infinity;
        if (this.o.now() - at >= every) {
          this.presenceRefreshedAt.set(key, this.o.now());
          for (const l of net.peers.links()) l.send({ code: MessageCode.getPresence2, address: c.record.address });
        }
      }
      let next = online;
      if (devices.length > 0) next = true;
      else if (online && nowS - (this.lastHeardS.get(key) ?? -Infinity) > PRESENCE_TIMEOUT_S) next = false;
      if (next === online || this.contacts.get(key) !== c) continue;
      c.extras.online = next;
      await this.db.putContact(c);
      this.publishFriendStatus(c);
    }
  }

  private publishFriendStatus(c: StoredContact): void {
    void this.o.bridge?.publishFriendStatus(this.contactJson(c));
  }

  /** New session keys: entries sent under the old ones (the contact could not read them) go again at once. */
  private forgetSent(contactKey: string): void {
    for (const e of this.outbox.queue(contactKey)) if (e.payload.frame == null) this.sentAt.delete(sentKey(contactKey, e.id));
  }

  /** One retry pass over the outbox (§3.7 steps 4 and 6). */
  pass(options: { force?: boolean } = {}): Promise<void> {
    // A call during a pass queues one more (callers during the same pass share it): its promise
    // resolves when a pass that began after the call is done, with `force` if any caller asked.
    if (this.passRunning) {
      if (!this.passQueued) {
        const queued = { force: false, done: Promise.resolve() };
        const next = (): Promise<void> => {
          this.passQueued = null;
          return this.startPass(queued.force);
        };
        queued.done = this.passRunning.then(next, next);
        this.passQueued = queued;
      }
      if (options.force) this.passQueued.force = true;
      return this.passQueued.done;
    }
    return this.startPass(options.force === true);
  }

  private startPass(force: boolean): Promise<void> {
    const run = this.runPass({ force }).finally(() => {
      if (this.passRunning === run) this.passRunning = null;
    });
    this.passRunning = run;
    return run;
  }

  private async runPass(options: { force: boolean }): Promise<void> {
    try {
      // By entry, not id: fixed ids repeat across contacts.
      const owner = new Map<OutboxEntry<OutboxPayload>, string>();
      for (const [c, q] of this.outbox.entries()) for (const e of q) owner.set(e, c);
      const touched = new Set(owner.values());
      const nowMs = this.o.now();
      const r = await this.outbox.pass(this.nowSeconds(), () => true, async (contact, e) => {
        // Sent within the retry interval and not acknowledged yet: not again (an acknowledgement
        // triggers a pass for the next messages; resending all of them each time would be quadratic).
        const at = this.sentAt.get(sentKey(contact, e.id));
        if (!options.force && at !== undefined && nowMs - at < this.retryMs) return true;
        return this.trySend(contact, e);
      });
      for (const e of r.expired) {
        this.stats.expired++;
        const contactKey = owner.get(e) ?? '';
        this.sentAt.delete(sentKey(contactKey, e.id));
        const rec = this.contacts.get(contactKey);
        if (rec) {
          await this.db.updateMessage(rec.record.address, e.payload.idBytes, (m) => {
            m.errorSending = true;
          });
        }
        this.o.log.warn({ id: e.id }, 'pending message expired after 5 days');
        void this.o.bridge?.publishMessageExpired(e.payload.idBytes);
      }
      for (const c of touched) await this.persistOutbox(c);
    } catch (err) {
      this.o.log.error({ err }, 'outbox pass failed');
    }
  }

  // ---- receiving ----------------------------------------------------------------------------

  /** One `s2data` that reached this client; frames are handled in arrival order. */
  receive(link: Link | null, recipient: Uint8Array, bytes: Uint8Array): Promise<void> {
    const run = this.inbound.then(() => this.handle(link, recipient, bytes));
    this.inbound = run.catch(() => undefined);
    return run;
  }

  private drop(reason: string, code: string, context: Record<string, unknown>): void {
    this.stats.dropped++;
    this.o.log.warn({ code, ...context }, `stream message dropped: ${reason}`);
  }

  private async handle(link: Link | null, recipient: Uint8Array, bytes: Uint8Array): Promise<void> {
    const from = link?.peer?.addressText;
    let m: StreamMessage;
    try {
      m = decodeStreamMessage(bytes);
    } catch (err) {
      return this.drop((err as Error).message, (err as MessagingError).code ?? 'ERR_STREAM_MESSAGE', { relay: from });
    }
    if (Buffer.compare(Buffer.from(recipient), Buffer.from(this.identity.address)) !== 0) return this.drop('s2data recipient is not this node', 'ERR_RECIPIENT', { relay: from });
    const key = m.sender ? hex(m.sender) : '';
    const stored = this.contacts.get(key);
    let r: ReceiveResult;
    try {
      r = await this.authenticate(m, bytes, stored?.record);
    } catch (err) {
      if (err instanceof MessagingError) return this.drop(err.message, err.code, { relay: from, sender: m.sender ? addrText(m.sender) : null });
      throw err;
    }
    this.stats.received++;
    const contact: StoredContact = stored ?? { record: r.contact, extras: {} };
    contact.record = r.contact;
    if (r.created) this.contacts.set(key, contact);
    const wasOnline = contact.extras.online === true;
    if (m.type !== StreamMessageCode.error) {
      contact.extras.online = true;
      this.lastHeardS.set(key, this.nowSeconds());
    }
    // spixi2 frames (chat, app data, receipts after the handshake) do not change the record.
    const stateChanged = r.events.some((e) => e.type !== 'Message' && (e.type !== 'MsgReceived' || e.statusStep));
    // Handshake answers (accept, keys2, getNick, an rsa2 nick) wait in the outbox for their receipts; receipts go once.
    const handshakeAnswers = r.outgoing.filter((out) => out.id.length === 1 && out.requireRcvConfirmation);
    const receipts = r.outgoing.filter((out) => !handshakeAnswers.includes(out));
    const queued: OutboxEntry<OutboxPayload>[] = [];
    for (const out of handshakeAnswers) {
      const entry = this.frameEntry(out);
      if (this.outbox.enqueue(key, entry).sendNow) queued.push(entry);
    }
    // §3.5 steps 4–5: the side whose handshake completes (accept at the requester, keys2 at the
    // acceptor) sends its nick; it goes out with the pass the event below starts.
    const completes = r.events.some((e) => e.type === 'AcceptAdd2' || e.type === 'HandshakeComplete');
    if (completes) this.outbox.enqueue(key, this.ownNickEntry());
    // The record and the frames it waits for are written together: a kill -9 between two writes
    // would leave the handshake stuck (§3.5) or the nick unsent, never queued and never asked for again.
    if (handshakeAnswers.length > 0 || completes) await this.db.putContactWithOutbox(contact, this.outbox.queue(key));
    else if (r.created || stateChanged || m.encryptionType !== EncryptionType.spixi2 || wasOnline !== contact.extras.online) await this.db.putContact(contact);
    for (const entry of queued) this.trySend(key, entry);
    // reference-quixi-events §1.7: FriendStatusUpdate (the contact JSON) when `online` flips.
    if (wasOnline !== contact.extras.online) this.publishFriendStatus(contact);
    if (r.ignored) this.o.log.info({ code: r.ignored.code, sender: addrText(r.contact.address) }, `stream message not applied: ${r.ignored.message}`);
    const contactText = addrText(r.contact.address);
    const received: ReceivedForMq = {
      message: r.message,
      spixi: r.spixi,
      originalData: m.encryptionType ? m.data : null,
      originalChecksum: m.encryptionType ? streamMessageChecksum(m) : null,
    };
    const payload = (): MessagingEventPayload => ({ contact: contactText, message: streamEventObject(received, 'B') });
    for (const e of r.events) {
      switch (e.type) {
        case 'RequestAdd2':
          this.o.events.emit('contactRequest', payload());
          void this.o.bridge?.publishReceived(received);
          break;
        case 'RequestCrossed':
          // We wait for their accept to our request: it must still be going out (it may have been
          // acknowledged and dequeued before they removed and re-added us).
          if (!this.outbox.queue(key).some((x) => x.id === REQUEST_ENTRY_ID)) {
            const { request } = await this.contactRequest(r.contact.address, this.nowSeconds());
            // Our next handshake frame (keys2) must be newer than this request at the contact.
            contact.record.lastSentHandshakeTimestamp = Math.max(contact.record.lastSentHandshakeTimestamp, request.timestamp);
            await this.putContactWithFrame(contact, request);
          }
          break;
        case 'AcceptAdd2':
          // The accept answers our request: it no longer needs re-sending.
          if (this.outbox.acknowledge(key, REQUEST_ENTRY_ID)) await this.persistOutbox(key);
          this.o.events.emit('contactAccepted', { ...payload(), contactJson: this.contactJson(contact) });
          void this.o.bridge?.publishReceived(received);
          // Messages queued before the keys existed can go now.
          this.forgetSent(key);
          // §3.5 step 4: after keys2 the requester sends its nickname (handleAcceptAdd2), queued above.
          void this.pass();
          break;
        case 'HandshakeComplete':
          this.o.events.emit('contactAccepted', { ...payload(), contactJson: this.contactJson(contact) });
          this.forgetSent(key);
          // §3.5 step 5: the acceptor sends its nickname once keys2 arrived (handleReceivedKeys2), queued above.
          void this.pass();
          break;
        case 'MsgReceived': {
          const idHex = hex(e.id);
          // Confirmed in the history before it leaves the persisted queue: a kill -9 between the
          // two writes resends a confirmed message (acknowledged again), where the other order
          // would leave it unconfirmed and never sent again (§3.7 step 6).
          let changed = false;
          const updated = e.id.length === MESSAGE_ID_LENGTH ? await this.db.updateMessage(r.contact.address, e.id, (sm) => {
            changed = !sm.confirmed || (e.read === true && !sm.read);
            sm.confirmed = true;
            sm.sent = true;
            if (e.read) sm.read = true;
          }) : null;
          const acked = this.outbox.acknowledge(key, idHex);
          this.sentAt.delete(sentKey(key, idHex));
          if (acked) await this.persistOutbox(key);
          // A resent message is acknowledged again: on the bus only the receipt that changes
          // something (the stored message, the queue, the handshake status) is an event, not every copy.
          if (changed || (updated === null && (acked !== null || e.statusStep))) {
            this.o.events.emit('messageReceipt', { contact: contactText, id: toBase64(e.id), channel: e.channel, confirmed: updated !== null });
          }
          // QuIXI publishes every receipt a known contact sends (reference-quixi-events §1.6:
          // MsgReceived for 16-byte ids always, handshake ids when they move the status; MsgRead
          // for any read receipt, handleMsgRead), copies and unknown ids included.
          if (e.read === true || publishesMsgReceived(e)) void this.o.bridge?.publishReceived(received);
          // The next queued message of this contact goes now (order kept).
          if (acked) void this.pass();
          break;
        }
        case 'Message':
          if (await this.deliver(contact, e.message, e.spixi, payload)) void this.o.bridge?.publishReceived(received);
          break;
        case 'Undeliverable': {
          contact.extras.online = false;
          await this.db.putContact(contact);
          if (wasOnline) this.publishFriendStatus(contact);
          // The contact left that relay (restarted elsewhere, or offline): route around the
          // device there and ask for its presence again (§7.1 step 6).
          const refused = this.notConnectedAt.get(key) ?? new Map<string, number>();
          for (const host of [link?.peer?.endpoint, link?.remote]) if (host) refused.set(host, this.nowSeconds());
          if (refused.size > 0) this.notConnectedAt.set(key, refused);
          if (this.o.network) this.askPresence(this.o.network, r.contact.address);
          this.o.log.debug({ contact: contactText, relay: from }, 'relay: contact not connected; asking for its presence, retrying later');
          break;
        }
      }
    }
    // Receipts last, once what they acknowledge is stored: a kill -9 before they leave makes the
    // sender send again (a duplicate is acknowledged, not stored twice, §3.7); a receipt that left
    // before the message was stored would dequeue a message the receiver never kept.
    for (const out of receipts) this.transmit(r.contact.address, encodeStreamMessage(out));
  }

  /** Applies a received message (stores a chat, names the contact…); false when the MQ bridge must not publish it. */
  private async deliver(c: StoredContact, m: StreamMessage, spixi: SpixiMessage, payload: () => MessagingEventPayload): Promise<boolean> {
    switch (spixi.type) {
      case SpixiMessageCode.chat: {
        // An empty chat (no payload) is acknowledged (the receipt went with the frame) but neither
        // stored nor published: the reference reads its text from a null payload, throws, and
        // loses it (reference-quixi-events §1.6 Chat; QuIXI StreamProcessor.receiveData).
        if (!spixi.data || spixi.data.length === 0) {
          this.o.log.info({ contact: addrText(c.record.address), id: toBase64(m.id) }, 'empty chat message ignored (no text)');
          return false;
        }
        // interface.md: senderNick is the sender's nickname at send time, i.e. the contact's nickname
        // as `contacts` shows it when the message arrives (the address text until a nick is known).
        const text = Buffer.from(spixi.data).toString('utf8');
        await this.db.addMessage(c.record.address, spixi.channel, createStoredMessage({ id: m.id, message: text, timestamp: m.timestamp, localSender: false, type: FriendMessageType.standard, senderNick: c.extras.nickname ?? addrText(c.record.address), receivedTimestamp: this.nowSeconds(), payableDataLen: spixi.data.length }));
        this.o.events.emit('chatMessage', payload());
        return true;
      }
      case SpixiMessageCode.nick: {
        // reference-rpc-messaging §3.3: a contact's nickname is the nick it sent, else its address
        // text. An empty nick names the contact by its address again (Core handles a nick with
        // no payload as the sender's address text) and is not published: QuIXI's serializer
        // throws on it and the Nick event is lost (reference-quixi-events §1.6 Nick).
        const nick = spixi.data && spixi.data.length > 0 ? Buffer.from(spixi.data).toString('utf8') : undefined;
        if (nick !== c.extras.nickname) {
          if (nick === undefined) delete c.extras.nickname;
          else c.extras.nickname = nick;
          await this.db.putContact(c);
        }
        this.o.events.emit('spixiMessage', payload());
        return nick !== undefined;
      }
      case SpixiMessageCode.getNick:
        // The reference answers a getNick from any known contact, approved or not
        // (CoreStreamProcessor.handleGetNick checks only that the sender is a friend). Without
        // session keys the answer was built under rsa2 with the frame (receiveFrame) and is queued
        // already with id [5]; this queues the spixi2 one otherwise (one [5] per contact). The
        // payload (a bot user's address) means nothing here.
        await this.sendOwnNick(c.record.address);
        this.o.events.emit('spixiMessage', payload());
        return true;
      case SpixiMessageCode.avatar:
        // QuIXI publishes an avatar only with a payload under 500 000 bytes (StreamProcessor.receiveData).
        this.o.events.emit('spixiMessage', payload());
        return spixi.data !== null && spixi.data.length > 0 && spixi.data.length < MAX_PUBLISHED_AVATAR_BYTES;
      case SpixiMessageCode.appData:
        this.o.events.emit('appData', payload());
        return true;
      case SpixiMessageCode.appProtocolData:
        this.o.events.emit('appProtocolData', payload());
        return true;
      default:
        this.o.events.emit('spixiMessage', payload());
        return true;
    }
  }
}

function checkChannel(channel: number, allowReceiptChannel = false): void {
  const min = allowReceiptChannel ? -1 : 0;
  if (!Number.isInteger(channel) || channel < min || channel > MAX_CHANNEL) throw new MessagingRequestError(`Invalid channel ${channel}: a channel is an integer ${min}–${MAX_CHANNEL}`);
}

function checkPayload(length: number): void {
  if (length > MAX_MESSAGE_PAYLOAD_BYTES) throw new MessagingRequestError(`Payload too large: ${length} bytes, at most ${MAX_MESSAGE_PAYLOAD_BYTES}`);
}

/** The node's wallet key as the messaging identity. */
export function identityOf(key: { publicKey: Uint8Array; stored: { privateKey: Uint8Array } }): Identity {
  return { address: Address.fromPublicKey(key.publicKey).addressNoChecksum, publicKey: key.publicKey, privateKey: privateKeyFromBytes(key.stored.privateKey) };
}
