// Entry of the codec WASM program: varints and the v7 transaction codec.
