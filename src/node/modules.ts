/**
 * What the node is made of, as the RPC handlers and the notifier see it (reshape-for-peers §4.4,
 * lodestar's `ApiModules`): each method group declares the modules it uses with a `Pick<…>`, so a
 * handler test passes only those (or fakes of them), and the table shows which operation depends
 * on which module.
 */
import type { Network } from '../codec/types.js';
import type { Chain } from '../chain/chain.js';
import type { Clock } from '../clock.js';
import type { Consensus } from '../consensus/index.js';
import type { NodeNetwork } from '../network/node-network.js';
import type { MessagingCryptoItem, MessagingCryptoResult } from '../pool/index.js';
import type { MessagingService } from '../messaging/service.js';
import type { PowClaim } from '../core/pow.js';
import type { Logger } from '../log/logger.js';
import type { Mempool } from '../mempool/mempool.js';
import type { Mining } from '../mining/index.js';
import type { ActivityIndex } from '../explorer/activity.js';
import type { NameSystem } from '../names/chain-extension.js';
import type { Store } from '../state/store.js';
import type { SearchJob, SearchResult } from '../pool/tasks/search-pow.js';
import type { SignerSearchJob, SignerSearchResult } from '../pool/tasks/search-signer-pow.js';
import type { RsaSignItem } from '../pool/tasks/rsa.js';
import type { SignerMiner } from '../consensus/signer-miner.js';
import type { NodeWallet } from '../wallet/wallet.js';
import type { HeaderChain } from '../chain/header-chain.js';
import type { LightWallet } from '../wallet/light-wallet.js';
import type { NodeEventBus } from './events.js';
import type { NodeOptions } from './options.js';

/** The node's worker pool as the modules use it (src/pool). */
export interface NodePool {
  readonly threads: number;
  /** Mining PoW claims (reference-formats §11): does each Argon2id hash meet its difficulty? */
  verifyPow(claims: readonly PowClaim[]): Promise<boolean[]>;
  /** RSA PKCS#1 v1.5 SHA-512 signatures (§6.2); `urgent`: a block's few, on the consensus thread; `first`: ahead of queued checks. */
  verifyRsa(items: readonly { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[], opts?: { urgent?: boolean; first?: boolean }): Promise<boolean[]>;
  /** The built-in miner's nonce search (absent: the node cannot mine). */
  searchPow?(jobs: readonly SearchJob[]): Promise<SearchResult[]>;
  /** The signer miner's search (signer PoW, reference-formats §12), a background task. */
  searchSignerPow(jobs: readonly SignerSearchJob[]): Promise<SignerSearchResult[]>;
  /** RSA PKCS#1 v1.5 SHA-512 signing off the event loop (§6.2): the block's signature, on the consensus thread. */
  signRsa(items: readonly RsaSignItem[]): Promise<Uint8Array[]>;
  /** Foreground items waiting or running: background tasks (the miners) submit only at 0. */
  foregroundPending(): number;
  /** Handshake steps of contact messaging (RSA-4096 sign/verify/decrypt, secp521r1, ML-KEM-1024). */
  messagingCrypto(items: readonly MessagingCryptoItem[]): Promise<MessagingCryptoResult[]>;
  close(): Promise<void>;
}

export interface NodeInfo {
  /** Unix ms the node started. */
  startedAtMs: number;
  /** `<package name>-<version>`, reported as status `Node Version`. */
  version: string;
}

export interface NodeModules {
  readonly opts: NodeOptions;
  readonly network: Network;
  readonly log: Logger;
  readonly clock: Clock;
  readonly info: NodeInfo;
  readonly store: Store;
  readonly events: NodeEventBus;
  readonly chain: Chain;
  readonly names: NameSystem;
  readonly mempool: Mempool;
  readonly pool: NodePool;
  readonly wallet: NodeWallet;
  readonly consensus: Consensus;
  /** The peer network; undefined for a lone node (the embedded network without --p2p-port or peers). */
  readonly p2p: NodeNetwork | undefined;
  /** Port of the peer listener, 0 when the node does not listen. */
  readonly peerPort: number;
  /** Mining claims, the miner's counters (src/mining). */
  readonly mining: Mining;
  /** History of the node's own addresses (`activity`, `activity2`). */
  readonly activity: ActivityIndex;
  /** Contact messaging (issue 11); undefined unless the node is a client (--role client). */
  readonly messaging: MessagingService | undefined;
  /** The signer miner (issue 10); undefined unless the node is a master of a genesis network. */
  readonly signerMiner: SignerMiner | undefined;
  /**
   * A light node's own parts (relays and clients: headers only, reference-network §1): the
   * headers it follows and its wallet's transactions; undefined on masters and lone nodes.
   */
  readonly light: LightModules | undefined;
}

export interface LightModules {
  readonly headers: HeaderChain;
  readonly wallet: LightWallet;
}
