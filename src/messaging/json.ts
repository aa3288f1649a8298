/**
 * Contact (Friend) and Message (FriendMessage) JSON objects: every member of interface.md
 * §Contact / §Message plus the reference's extra members, in the reference's order
 * (reference-rpc-messaging.md §3.3, §3.4; Address and Peer objects as there). Byte fields are
 * standard Base64 with padding; absent values are `null`, as Newtonsoft writes them. Secrets
 * (session keys, ephemeral private keys, salts) are never serialized.
 */
import { Address } from '../formats/address.js';
import { toBase64 } from '../formats/bytes.js';
import { isChannelEstablished, NEW_CONTACT_CAPABILITIES, type ContactRecord } from './handshake.js';

const b64 = (b: Uint8Array | null | undefined): string | null => (b ? toBase64(b) : null);

/** FriendMessageType (§3.4). */
export const FriendMessageType = {
  standard: 0, requestAdd: 1, requestFunds: 2, sentFunds: 3, fileHeader: 4, voiceCall: 5, voiceCallEnd: 6,
  appSession: 7, appSessionEnd: 8, kicked: 9, banned: 10, requestAddSent: 11,
} as const;

export interface AddressJson {
  version: number;
  addressWithChecksum: string;
  base58Address: string;
  addressNoChecksum: string;
  sectorPrefix: string;
  nonce: string | null;
  pubKey: string | null;
}

/**
 * The reference Address object. `version` is the address's version byte; pass
 * `{ textQuirk: true }` for the reference's 0 on addresses it built from text (§3.3 QUIRK).
 */
export function addressToJson(address: Uint8Array | Address, options: { textQuirk?: boolean } = {}): AddressJson {
  const a = address instanceof Address ? address : new Address(address);
  return {
    version: options.textQuirk ? 0 : a.version,
    addressWithChecksum: b64(a.addressWithChecksum)!,
    base58Address: a.base58Address,
    addressNoChecksum: b64(a.addressNoChecksum)!,
    sectorPrefix: b64(a.sectorPrefix)!,
    nonce: null,
    pubKey: null,
  };
}

export interface Peer {
  hostname: string;
  walletAddress: Uint8Array | null;
  lastSeen: number;
  lastConnectAttempt: number;
  lastConnected: number;
  rating: number;
  blacklisted: number;
}

/** The reference Peer object (§3.3). Type aliases, not interfaces, so they stay assignable to `Record<string, unknown>`. */
export type PeerJson = {
  hostname: string;
  walletAddress: AddressJson | null;
  lastSeen: number;
  lastConnectAttempt: number;
  lastConnected: number;
  rating: number;
  blacklisted: number;
};

export function peerToJson(p: Peer): PeerJson {
  return {
    hostname: p.hostname,
    walletAddress: p.walletAddress ? addressToJson(p.walletAddress) : null,
    lastSeen: p.lastSeen,
    lastConnectAttempt: p.lastConnectAttempt,
    lastConnected: p.lastConnected,
    rating: p.rating,
    blacklisted: p.blacklisted,
  };
}

export interface MessageReaction {
  sender: Uint8Array;
  data: string | null;
}

/** A stored message (FriendMessage, §3.4). */
export interface StoredMessage {
  /** 16 random bytes for local messages; the sender's StreamMessage id for received ones. */
  id: Uint8Array;
  message: string;
  timestamp: number;
  localSender: boolean;
  read: boolean;
  confirmed: boolean;
  sent: boolean;
  errorSending: boolean;
  type: number;
  transferId: string;
  completed: boolean;
  filePath: string;
  fileSize: number;
  /** Only for group-chat messages; null for 1:1 chats and own messages. */
  senderAddress: Uint8Array | null;
  senderNick: string;
  receivedTimestamp: number;
  transactionId: string;
  payableDataLen: number;
  reactions: Record<string, MessageReaction[]>;
}

/** A StoredMessage with the reference defaults for the members not given. */
export function createStoredMessage(fields: Pick<StoredMessage, 'id' | 'message' | 'timestamp' | 'localSender' | 'type' | 'senderNick' | 'receivedTimestamp'> & Partial<StoredMessage>): StoredMessage {
  return {
    read: false,
    confirmed: false,
    sent: false,
    errorSending: false,
    transferId: '',
    completed: false,
    filePath: '',
    fileSize: 0,
    senderAddress: null,
    transactionId: '',
    payableDataLen: 0,
    reactions: {},
    ...fields,
  };
}

/**
 * Message JSON (interface.md §Message + §3.4): the result type of `getLastMessages`, which the
 * typed client (src/client/) declares from it.
 */
export type MessageJson = {
  message: string;
  timestamp: number;
  localSender: boolean;
  read: boolean;
  confirmed: boolean;
  sent: boolean;
  errorSending: boolean;
  type: number;
  transferId: string;
  completed: boolean;
  filePath: string;
  fileSize: number;
  senderAddress: AddressJson | null;
  senderNick: string;
  receivedTimestamp: number;
  transactionId: string;
  payableDataLen: number;
  /** Reactions by emoji/key: who reacted and with what data. */
  reactions: Record<string, { sender: AddressJson; data: string | null }[]>;
  /** Base64 message id. */
  id: string;
};

/** Message JSON (interface.md §Message + §3.4), members in the reference order. */
export function messageToJson(m: StoredMessage): MessageJson {
  const reactions: MessageJson['reactions'] = {};
  for (const [k, list] of Object.entries(m.reactions)) reactions[k] = list.map((r) => ({ sender: addressToJson(r.sender), data: r.data }));
  return {
    message: m.message,
    timestamp: m.timestamp,
    localSender: m.localSender,
    read: m.read,
    confirmed: m.confirmed,
    sent: m.sent,
    errorSending: m.errorSending,
    type: m.type,
    transferId: m.transferId,
    completed: m.completed,
    filePath: m.filePath,
    fileSize: m.fileSize,
    senderAddress: m.senderAddress ? addressToJson(m.senderAddress) : null,
    senderNick: m.senderNick,
    receivedTimestamp: m.receivedTimestamp,
    transactionId: m.transactionId,
    payableDataLen: m.payableDataLen,
    reactions,
    id: b64(m.id)!,
  };
}

/** The last `count` messages of a chronologically sorted history, oldest first (§3.9); count ≤ 0 gives []. */
export function selectLastMessages<T>(sorted: readonly T[], count: number): T[] {
  if (!Number.isInteger(count) || count <= 0) return [];
  return sorted.slice(Math.max(0, sorted.length - count));
}

/** Non-key fields of a contact that live beside the handshake record. */
export interface ContactExtras {
  /** User-defined nick, else received nick, else the address text (the default here). */
  nickname?: string;
  online?: boolean;
  isTyping?: boolean;
  forcePush?: boolean;
  handshakePushed?: boolean;
  pendingDeletion?: boolean;
  keyGeneratedTime?: number;
  updatedSectorNodes?: number;
  sectorNodes?: Peer[];
  requestedPresence?: number;
  updatedStreamingNodes?: number;
  relayNode?: Peer | null;
  supportedProtocols?: Uint8Array[];
  bot?: boolean;
  /** Last received message id per channel. */
  lastReceivedMessageIds?: Record<string, Uint8Array>;
  unreadMessageCount?: number;
  lastMessage?: StoredMessage | null;
  lastMessageChannel?: number;
  /**
   * `approved` as the reference writes it (our consent flag: true right after addContact). By
   * default it is interface.md's meaning: the secure channel is established (`isChannelEstablished`).
   */
  referenceApproved?: boolean;
  /** Reproduce the reference's `version: 0` of addresses built from text (§3.3 QUIRK). */
  addressTextQuirk?: boolean;
}

/**
 * Contact JSON (interface.md §Contact + §3.3): the result type of `contacts`, `addContact` and the
 * other contact operations, which the typed client (src/client/) declares from it.
 */
export type ContactJson = {
  keyGeneratedTime: number;
  online: boolean;
  isTyping: boolean;
  forcePush: boolean;
  addedTimestamp: number;
  users: null;
  groups: null;
  channels: null;
  metaData: {
    botInfo: null;
    /** Base64 id of the last message received, by channel. */
    lastReceivedMessageIds: Record<string, string | null>;
    unreadMessageCount: number;
    lastMessage: MessageJson | null;
    lastMessageChannel: number;
  };
  /** The secure channel is established (interface.md), or the reference's consent flag. */
  approved: boolean;
  handshakePushed: boolean;
  lastReceivedHandshakeMessageTimestamp: number;
  pendingDeletion: boolean;
  state: number;
  updatedSectorNodes: number;
  sectorNodes: PeerJson[];
  requestedPresence: number;
  updatedStreamingNodes: number;
  relayNode: PeerJson | null;
  protocolVersion: number;
  streamCapabilities: number;
  supportedProtocols: (string | null)[];
  walletAddress: AddressJson;
  publicKey: string | null;
  bot: boolean;
  handshakeStatus: number;
  nickname: string;
};

/** Contact JSON (interface.md §Contact + §3.3), members in the reference order. */
export function contactToJson(c: ContactRecord, x: ContactExtras = {}): ContactJson {
  const address = new Address(c.address);
  const lastIds: Record<string, string | null> = {};
  for (const [ch, id] of Object.entries(x.lastReceivedMessageIds ?? {})) lastIds[ch] = b64(id);
  return {
    keyGeneratedTime: x.keyGeneratedTime ?? 0,
    online: x.online ?? false,
    isTyping: x.isTyping ?? false,
    forcePush: x.forcePush ?? false,
    addedTimestamp: c.addedTimestamp,
    users: null,
    groups: null,
    channels: null,
    metaData: {
      botInfo: null,
      lastReceivedMessageIds: lastIds,
      unreadMessageCount: x.unreadMessageCount ?? 0,
      lastMessage: x.lastMessage ? messageToJson(x.lastMessage) : null,
      lastMessageChannel: x.lastMessageChannel ?? 0,
    },
    approved: x.referenceApproved ? c.approved : isChannelEstablished(c),
    handshakePushed: x.handshakePushed ?? false,
    lastReceivedHandshakeMessageTimestamp: c.lastReceivedHandshakeMessageTimestamp,
    pendingDeletion: x.pendingDeletion ?? false,
    state: c.state,
    updatedSectorNodes: x.updatedSectorNodes ?? 0,
    sectorNodes: (x.sectorNodes ?? []).map(peerToJson),
    requestedPresence: x.requestedPresence ?? 0,
    updatedStreamingNodes: x.updatedStreamingNodes ?? 0,
    relayNode: x.relayNode ? peerToJson(x.relayNode) : null,
    protocolVersion: c.protocolVersion,
    streamCapabilities: c.streamCapabilities ?? NEW_CONTACT_CAPABILITIES,
    supportedProtocols: (x.supportedProtocols ?? []).map((p) => b64(p)),
    walletAddress: addressToJson(address, { textQuirk: x.addressTextQuirk }),
    publicKey: b64(c.publicKey),
    bot: x.bot ?? false,
    handshakeStatus: c.handshakeStatus,
    nickname: x.nickname ?? address.base58Address,
  };
}
