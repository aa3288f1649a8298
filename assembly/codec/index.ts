// Entry of the codec WASM program: the v7 transaction codec with its checksum (reference-formats
// §8.4–§8.5). Everything the JS wrapper (src/codec/transaction.ts) needs is exported from here:
// the window addresses and table layout (layout.ts), the result codes (errors.ts) and the calls.
export * from './layout';
export * from './errors';
export { setLockLength, decode, decodeBatch, canonicalize } from './transaction';
