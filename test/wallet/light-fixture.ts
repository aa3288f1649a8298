/**
 * A client's light wallet over a funded test chain (test/chain/fixture.ts), whose questions to the
 * network are answered by that chain's master state, as a relay would pass them on.
 */
import { encodeBlockHeader } from '../../src/chain/block.js';
import { HeaderChain } from '../../src/chain/header-chain.js';
import { systemClock } from '../../src/clock.js';
import { masterLightState } from '../../src/network/light-node.js';
import { LightWallet } from '../../src/wallet/light-wallet.js';
import { silentLog, type TestChain } from '../chain/fixture.js';

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
