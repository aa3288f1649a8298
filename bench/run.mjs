// `npm run bench [-- suite...]`: runs every bench/*.bench.mjs (or the named suites) one after the
// other in fresh processes, after printing the machine and versions. Peers run in the same process
// as ours within a suite, so the printed ratios compare like with like.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, versionOf } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const suites = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

console.log(`dltnode ${versionOf('dltnode') ?? ''} benchmarks — ${new Date().toISOString()}`);
console.log(machineLine());
if (suites.length === 0) {
  console.log(`no suite matches ${wanted.join(', ')}`);
  process.exit(1);
}
let failed = 0;
for (const s of suites) {
  console.log(`\n=== ${s} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, s)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
