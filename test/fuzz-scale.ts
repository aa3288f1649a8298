/**
 * Number of fast-check runs for a property: `n` in `npm test`, `n × DLTNODE_FUZZ_SCALE` in the long
 * fuzzing run (`npm run test:slow`, test/fuzz.slow.test.ts).
 */
export const runs = (n: number): number => Math.round(n * Number(process.env.DLTNODE_FUZZ_SCALE ?? 1));
