/**
 * Long fuzzing (`npm run test:slow`): the codec and name-payload property suites with 50× the runs
 * of `npm test` (DLTNODE_FUZZ_SCALE overrides). Importing a suite registers its tests here.
 */
process.env.DLTNODE_FUZZ_SCALE ??= '50';
await import('./codec/wasm-codec.test.js');
await import('./codec/transaction.test.js');
await import('./names/payloads.property.test.js');
