/**
 * Message codes of our peer frames (reference-network.md §8). Where the reference has a message
 * with the same meaning we keep its integer and name; our payloads are our own (§10 "may
 * simplify"), documented in messages.ts. Codes of our own start at 100, above every reference
 * integer, so a reader of a frame dump never confuses the two.
 *
 * Each code has a maximum frame size (code byte + payload). The bound is checked before a payload
 * is decoded, so an oversized frame costs nothing but its receipt and a score.
 */

export const MessageCode = Object.freeze({
  /** Dialler → acceptor: identity signed over the acceptor's challenge, plus the dialler's challenge (§2.3). */
  hello: 0,
  /** Acceptor → dialler: identity signed over the dialler's challenge, tip and observed address (§2.3). */
  helloData: 1,
  /** Transaction rejection feedback: code byte + txid (§4.3). */
  rejected: 3,
  /** Ask keep-alives by (address, device) (§3.4 step 6). */
  getKeepAlives: 6,
  /** Several keep-alives (§3.4). */
  keepAlivesChunk: 7,
  /** Answer to getTransaction3: request id, txid, status (unknown, pending, applied at a height) and the v7 bytes (§7.3, light clients). */
  transactionData2: 8,
  /** One full block: our block bytes (chain/block.ts), pushed by its proposer or answering getBlock3 (§5.1, §5.3). */
  blockData2: 9,
  /** One block signature with height and block checksum (§5.2). */
  blockSignature2: 13,
  /** Ask every signature of (height, checksum) (§5.2). */
  getBlockSignatures2: 14,
  /** Height, checksum and many signatures (§5.2). */
  signaturesChunk2: 17,
  /** Sector prefix + maximum count → relays of that sector (§3.5). */
  getSectorNodes: 18,
  /** Prefix + relay presences (§3.5). */
  sectorNodes: 19,
  /** A presence: public key and its devices' keep-alives (§3.1). */
  updatePresence: 24,
  /** A stream message relay envelope: recipient + opaque stream-message bytes (§7.1). */
  s2data: 26,
  /** Light clients (§7.3): request id + address → balance2 from a master (relays pass it on). */
  getBalance2: 30,
  /** Answer: request id, address, balance, wallet type, whether its public key is stored, and the tip it was read at. */
  balance2: 31,
  /** One keep-alive (§3.4). */
  keepAlivePresence: 34,
  /** Ask the presence of a wallet (§3.4). */
  getPresence2: 36,
  /** Ask the whole mempool, answered by transactionsChunk3 (§4.1). */
  getUnappliedTransactions: 38,
  /** One type char → up to 10 presences of that type (§2.2). */
  getRandomPresences: 48,
  /** Light clients (§7.3): request id, name id, whether the id is absolute → nameRecord. */
  getNameRecord: 43,
  /** Answer: request id, name id and the name with its data records (`encodeStoredName`; empty: no such name). */
  nameRecord: 44,
  /** Light clients (§8 TIV): request id, first height, count and the addresses of interest → blockHeaders4. */
  getBlockHeaders4: 49,
  /** Answer: headers in order; a block holding a transaction of interest also carries every txid and those transactions. */
  blockHeaders4: 50,
  /** Height, tx mode, full-header flag → blockData2 (§5.3, §6). */
  getBlock3: 55,
  /** Tag (0 or −height) and txids → transactionsChunk3 (§4.1). */
  getTransactions2: 56,
  /** Light clients (§7.3): request id + txid → transactionData2. */
  getTransaction3: 58,
  /** Inventory items: transactions, blocks, block signatures, keep-alives (§4, §8). */
  inventory2: 59,
  /** Tag and a batch of full v7 transactions (§4.1). */
  transactionsChunk3: 60,

  // ---- our own codes (no reference message with this meaning) ----
  /** Acceptor → dialler on open: a fresh random challenge the dialler's hello must sign (§10 keep 1). */
  challenge: 100,
  /** Link liveness: 8 opaque bytes, answered by pong (replaces the reference's 2 s ping byte, §10 simplify 1). */
  ping: 101,
  /** Answer to ping: the same 8 bytes. */
  pong: 102,
  /** Block-range sync request: first height, count, tx mode (replaces per-height getBlock3 during sync, §6). */
  getBlocks: 110,
  /** Block-range sync answer: consecutive blocks with their transactions. */
  blocks: 111,
} as const);

export type MessageCodeName = keyof typeof MessageCode;
export type MessageCodeValue = (typeof MessageCode)[MessageCodeName];

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Largest frame of any code. Below the reference's 50,000,000-byte `maxMessageSize` (§2.4): the
 * largest thing we send in one frame is a block range answer, which the sender cuts to fit.
 * The WebSocket servers and clients must be configured with this maximum payload.
 */
export const MAX_FRAME_BYTES = 32 * MiB;

/**
 * Maximum frame size per code, bytes. Reasons:
 * - control messages (ping, challenge, requests of one item) are tiny: 1 KiB;
 * - hello: a public key up to 2,500 bytes, a signature up to 2,048 bytes, strings: 8 KiB;
 * - inventory: up to 10,000 items (§4.2) of ≤ 192 bytes each: 2 MiB;
 * - transactions: a batch up to 10,000 v7 transactions; they average ~1.1 kB with RSA-4096
 *   signatures, but one may reach 512,000 bytes (formats §14): 16 MiB;
 * - a block (header, signatures, txids; up to 307,020 txids, formats §14): 24 MiB;
 * - keep-alives (≤ 3 kB each, 500 per chunk), signature chunks (≤ 1,000 signatures): 4 MiB;
 * - a stream message (an avatar may be 500,000 bytes, rpc-messaging §3.6): 1 MiB;
 * - light-client queries are one item (a filter of up to 64 addresses: 8 KiB); a header range
 *   answer is cut to fit the largest frame, like a block range.
 */
export const MAX_FRAME_BYTES_BY_CODE: Readonly<Record<MessageCodeValue, number>> = Object.freeze({
  [MessageCode.hello]: 8 * KiB,
  [MessageCode.helloData]: 8 * KiB,
  [MessageCode.rejected]: 1 * KiB,
  [MessageCode.getKeepAlives]: 1 * MiB,
  [MessageCode.keepAlivesChunk]: 4 * MiB,
  [MessageCode.transactionData2]: 1 * MiB,
  [MessageCode.blockData2]: 24 * MiB,
  [MessageCode.blockSignature2]: 16 * KiB,
  [MessageCode.getBlockSignatures2]: 1 * KiB,
  [MessageCode.signaturesChunk2]: 4 * MiB,
  [MessageCode.getSectorNodes]: 1 * KiB,
  [MessageCode.sectorNodes]: 4 * MiB,
  [MessageCode.updatePresence]: 256 * KiB,
  [MessageCode.s2data]: 1 * MiB + 1 * KiB,
  [MessageCode.getBalance2]: 1 * KiB,
  [MessageCode.balance2]: 1 * KiB,
  [MessageCode.keepAlivePresence]: 16 * KiB,
  [MessageCode.getPresence2]: 1 * KiB,
  [MessageCode.getUnappliedTransactions]: 1 * KiB,
  [MessageCode.getRandomPresences]: 1 * KiB,
  [MessageCode.getNameRecord]: 4 * KiB,
  [MessageCode.nameRecord]: 2 * MiB,
  [MessageCode.getBlockHeaders4]: 8 * KiB,
  [MessageCode.blockHeaders4]: MAX_FRAME_BYTES,
  [MessageCode.getBlock3]: 1 * KiB,
  [MessageCode.getTransactions2]: 2 * MiB,
  [MessageCode.getTransaction3]: 1 * KiB,
  [MessageCode.inventory2]: 2 * MiB,
  [MessageCode.transactionsChunk3]: 16 * MiB,
  [MessageCode.challenge]: 1 * KiB,
  [MessageCode.ping]: 1 * KiB,
  [MessageCode.pong]: 1 * KiB,
  [MessageCode.getBlocks]: 1 * KiB,
  [MessageCode.blocks]: MAX_FRAME_BYTES,
});

const NAMES = new Map<number, MessageCodeName>(
  (Object.entries(MessageCode) as [MessageCodeName, number][]).map(([name, code]) => [code, name]),
);

/** True if `code` is a message code of ours. */
export const isMessageCode = (code: number): code is MessageCodeValue => NAMES.has(code);

/** The name of a code (for logs and metrics labels), or `unknown(n)`. */
export const messageCodeName = (code: number): string => NAMES.get(code) ?? `unknown(${code})`;
