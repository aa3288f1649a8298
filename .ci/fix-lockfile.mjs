#!/usr/bin/env node
// The registry this project installs from lacks some foreign-platform builds of optional native
// packages (rollup, msgpackr-extract) at the exact versions their parents pin, so `npm install`
// leaves them out of package-lock.json and `npm ci` then refuses the lockfile as "out of sync".
// This adds a platform-tagged entry for every missing optional dependency; npm ci skips them on
// this platform by their os/cpu/libc fields. Run after every `npm install`:
//   node .ci/fix-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pkgs = lock.packages;
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd'];
const CPU = ['x64', 'arm64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

let added = 0;
for (const [key, meta] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const at = `node_modules/${name}`;
    if (pkgs[at]) continue;
    const parts = name.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p)) ?? (parts.includes('x64') ? 'x64' : undefined);
    if (!os) continue; // not a platform package: leave npm's own resolution alone
    const entry = { version, optional: true, os: [os] };
    if (cpu) entry.cpu = [cpu];
    if (parts.includes('musl')) entry.libc = ['musl'];
    if (parts.includes('gnu') || parts.includes('gnueabihf')) entry.libc = ['glibc'];
    if (meta.dev) entry.dev = true;
    if (meta.peer) entry.peer = true;
    pkgs[at] = entry;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`fix-lockfile: ${added} platform entries added`);
