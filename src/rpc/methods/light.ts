/**
 * What the light forms of the operations share (relays and clients: headers only,
 * reference-network §1): a question to the network that finds no answer becomes an RPC error
 * that says so, not an internal failure.
 */
import { LightQueryError } from '../../network/light-queries.js';
import { LightWalletError } from '../../wallet/light-wallet.js';
import { RpcCode, RpcError } from '../types.js';

/** Runs a question to the network; no link or no answer in time → a ServerBusy error naming why. */
export async function askNetwork<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    if (err instanceof LightQueryError || err instanceof LightWalletError) {
      throw new RpcError(RpcCode.ServerBusy, `The network did not answer: ${err.message}; try again`);
    }
    throw err;
  }
}
