/**
 * The one table of LMDB sub-databases (style P37). Each entry states its key → value shape. A
 * retired name stays in this table (marked retired) and is never reused. Other areas declare their
 * own sub-databases through `src/chain/extensions.ts` (for example the name system's `names`).
 */

export interface SubDbSpec {
  /** LMDB name of the sub-database. */
  name: string;
  /** `binary`: values are our codec output (P40); `msgpack`: small metadata objects. */
  encoding: 'binary' | 'msgpack';
  /** Key → value shape, for readers of the code. */
  shape: string;
}

export const SUB_DATABASES = {
  blocks: { name: 'blocks', encoding: 'binary', shape: 'u64 BE height → block bytes (src/chain/block.ts)' },
  transactions: {
    name: 'transactions',
    encoding: 'binary',
    shape: 'binary txid (reference-formats §8.7) → u64 BE apply sequence: its record in `applied` (a store written before that layout: the stored transaction itself, src/chain/tx-codec.ts)',
  },
  applied: {
    name: 'applied',
    encoding: 'binary',
    shape: 'u64 BE apply sequence (1 = first applied) → stored transaction (src/chain/tx-codec.ts; a store written before that layout: the binary txid, at most 54 bytes); newest = highest key (txa fromIndex 0)',
  },
  pending: {
    name: 'pending',
    encoding: 'binary',
    shape: 'u64 BE arrival sequence of its first transaction → 01 ‖ (u32 BE length ‖ stored transaction)… of one admitted chunk (00 ‖ …: one stored transaction, the form before chunks); pool order of txu, survives restarts (src/mempool/mempool.ts)',
  },
  wallets: {
    name: 'wallets',
    encoding: 'binary',
    shape: 'addressNoChecksum (33/45 bytes) → wallet state (src/chain/wallet-state.ts)',
  },
  contacts: {
    name: 'contacts',
    encoding: 'msgpack',
    shape: 'contact address without checksum → { record: ContactRecord, extras } (src/messaging/store.ts)',
  },
  messages: {
    name: 'messages',
    encoding: 'msgpack',
    shape: 'u8 address length ‖ contact address ‖ u32 BE channel ‖ u64 BE message sequence → StoredMessage (history in order)',
  },
  messageIds: {
    name: 'messageIds',
    encoding: 'binary',
    shape: 'u8 address length ‖ contact address ‖ message id → key of the message in `messages` (duplicates, receipts)',
  },
  outbox: {
    name: 'outbox',
    encoding: 'msgpack',
    shape: 'contact address without checksum → pending messages of that contact in send order (§3.7)',
  },
  undo: {
    name: 'undo',
    encoding: 'msgpack',
    shape: 'u64 BE height → UndoEntry[] (src/state/store.ts): the prior values of what that block wrote, kept for the last blocks (tip revert)',
  },
  headers: {
    name: 'headers',
    encoding: 'binary',
    shape: 'u64 BE height → block header bytes, rows 1–11 (src/chain/header-chain.ts; relays and clients, which hold no blocks)',
  },
  ownTransactions: {
    name: 'ownTransactions',
    encoding: 'msgpack',
    shape: "binary txid → { bytes: v7 transaction, height: applied height or 0 while pending, sent: unix ms, checked?: unix ms last asked about while pending, dropped?: reason } (a light node's own and incoming transactions, src/wallet/light-wallet.ts)",
  },
  meta: { name: 'meta', encoding: 'msgpack', shape: 'string → node metadata (tip, counters, sequences)' },
} as const satisfies Record<string, SubDbSpec>;

export type SubDbName = keyof typeof SUB_DATABASES;
