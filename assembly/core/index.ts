// Entry of the core WASM program: re-exports the hashing, Argon2id, PoW and signer-PoW modules.
export * from './sha3';
export * from './blake2b';
export * from './argon2';
export * from './pow';
export * from './sha512';
export * from './signer-pow';
