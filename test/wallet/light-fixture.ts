/**
 * A client's light wallet over a funded test chain (test/chain/fixture.ts), whose questions to the
 * network are answered by that chain's master state, as a relay would pass them on; the RPC
 * contexts of a master and of a client over that chain, and a caller of the transaction operations.
 */
import { encodeBlockHeader } from '../../src/chain/block.js';
import { HeaderChain } from '../../src/chain/header-chain.js';
import { systemClock } from '../../src/clock.js';
import { masterLightState } from '../../src/network/light-node.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { transactionMethods } from '../../src/rpc/methods/transactions.js';
import { LightWallet } from '../../src/wallet/light-wallet.js';
import { afterEach } from 'vitest';
import { openTestChain, silentLog, type TestChain } from '../chain/fixture.js';

/** Opens funded test chains for a test file and closes them after each test. Call it at the top level. */
export function testChains(): () => Promise<TestChain> {
  const open: TestChain[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
  });
  return async () => {
    const t = await openTestChain();
    open.push(t);
    return t;
  };
}

/** The wallet and the header chain it reads (a client's RPC context names both). */
export function lightWalletOver(t: TestChain): { wallet: LightWallet; headers: HeaderChain } {
  const state = masterLightState(t.chain, t.mempool, () => null);
  const headers = new HeaderChain({ store: t.store, genesisHeader: encodeBlockHeader(t.chain.getBlock(1n)!.block), superBlockPeriod: t.chain.superBlockPeriod, clock: systemClock });
  const wallet = new LightWallet({
    store: t.store,
    network: 'reg',
    extensions: t.chain.extensions,
    wallet: t.wallet,
    headers,
    clock: systemClock,
    log: silentLog,
    events: t.events,
    asker: () => ({
      balance: async (a: Uint8Array) => ({ ...state.balance(a), height: t.chain.height }),
      transaction: async (id: Uint8Array) => state.transaction(id),
    }),
  });
  return { wallet, headers };
}

/** The client's relay (it pays it a share, interface.md addTransaction rule 5), and an address no one holds. */
export const RELAY = Uint8Array.of(0, ...new Uint8Array(32).fill(7));
export const STRANGER = Uint8Array.of(0, ...new Uint8Array(32).fill(4));

/** RPC contexts over `t`: a master's, and a client's linked to {@link RELAY}, with the client's light wallet. */
export function rpcContexts(t: TestChain) {
  const { wallet, headers } = lightWalletOver(t);
  const links = () => [{ peer: { address: RELAY }, peerType: 'R' }];
  const base = { chain: t.chain, mempool: t.mempool, wallet: t.wallet, network: 'reg', clock: systemClock };
  return {
    wallet,
    masterCtx: { ...base, p2p: undefined, light: undefined },
    clientCtx: { ...base, p2p: { role: 'client', peers: { links } }, light: { headers, wallet } },
  };
}

/** Runs a transaction operation's light form (a client) or its handler (a master): its result, or the RPC error the dispatcher answers with. */
export async function callOperation(name: string, params: Record<string, unknown>, ctx: object, light: boolean): Promise<any> {
  const def = transactionMethods.find((m) => m.name === name)! as any;
  try {
    return await (light ? def.light : def.handler)(params, ctx);
  } catch (err) {
    const rpc = toRpcError(err);
    if (rpc) return rpc;
    throw err;
  }
}
