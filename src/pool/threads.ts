/**
 * The pool's thread count, in a module of its own (no Piscina, no WASM) so the option table
 * (config/options.ts) can import it without loading the pool.
 */
import { availableParallelism } from 'node:os';

/**
 * Worker threads of the node, in total: one per core, less one for the event loop (at least one).
 * The one definition: config/options.ts should import it rather than define its own.
 */
export function defaultPoolThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}
