// The client loads no server code (issue 8 point 7; DESIGN "Its users"): importing the package
// subpath `dltnode/client` loads three small modules and no uWebSockets.js, LMDB, Piscina or fs.
// Checked on the built package (dist/; `npm run build` first, as `npm test` does), statically by
// walking its import graph and at run time in a fresh Node process that records every module the
// import resolves.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = resolve(ROOT, 'dist/client/index.js');
const EXPECTED = ['dist/client/index.js', 'dist/client/operations.js', 'dist/rpc/wire.js'];
const SERVER = /uWebSockets|uws|lmdb|piscina|^node:fs|^fs$|\/version\.js$|\/envelope\.js$|\/server\.js$/;

/** The specifiers a compiled ES module imports or re-exports, statically or dynamically; `require` calls too. */
function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const re of [/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]*)['"]/g, /\brequire\(\s*['"]([^'"]*)['"]/g]) {
    for (const m of code.matchAll(re)) found.push(m[1]!);
  }
  if (/\bimport\(\s*[^'"\s]/.test(code) || /\brequire\(\s*[^'"\s]/.test(code)) found.push('<computed specifier>');
  return found;
}

describe('client isolation', () => {
  it('statically imports only the client modules and the shared envelope shapes', () => {
    const seen = new Set<string>();
    const foreign: string[] = [];
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('./') || spec.startsWith('../')) walk(resolve(dirname(file), spec));
        else foreign.push(`${relative(ROOT, file)} → ${spec}`);
      }
    };
    walk(ENTRY);
    expect(foreign).toEqual([]);
    expect([...seen].map((f) => relative(ROOT, f)).sort()).toEqual(EXPECTED);
  });

  it("its declarations reference none of the server's either (a project with skipLibCheck false failed on LMDB's)", () => {
    const seen = new Set<string>();
    const foreign: string[] = [];
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const spec of [...importsOf(text), ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!)]) {
        if (spec.startsWith('./') || spec.startsWith('../')) walk(resolve(dirname(file), spec).replace(/\.js$/, '.d.ts'));
        else foreign.push(`${relative(ROOT, file)} → ${spec}`);
      }
      for (const m of text.matchAll(/\/\/\/\s*<reference\s+(?:types|path)="([^"]+)"/g)) foreign.push(`${relative(ROOT, file)} → reference ${m[1]}`);
    };
    walk(resolve(ROOT, 'dist/client/index.d.ts'));
    expect(foreign).toEqual([]);
    expect([...seen].map((f) => relative(ROOT, f)).sort()).toEqual([
      'dist/client/index.d.ts',
      'dist/client/operations.d.ts',
      'dist/client/schema.d.ts',
      'dist/rpc/types.d.ts',
      'dist/rpc/wire.d.ts',
    ]);
  });

  it('the walker sees server imports (it can fail)', () => {
    expect(importsOf(readFileSync(resolve(ROOT, 'dist/rpc/server.js'), 'utf8')).some((s) => SERVER.test(s))).toBe(true);
  });

  it('importing dltnode/client in a fresh process resolves no server module', () => {
    const hooks = `
      let port;
      export function initialize(data) { port = data.port; }
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        port.postMessage(result.url);
        return result;
      }`;
    const main = `
      import { register } from 'node:module';
      import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
      const client = await import('dltnode/client');
      const urls = [];
      for (let m; (m = receiveMessageOnPort(port1)); ) urls.push(m.message);
      const c = client.createClient({ url: 'http://127.0.0.1:1' });
      console.log(JSON.stringify({ urls, status: typeof c.status, call: typeof c.call }));
      port1.close();
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', main], { cwd: ROOT, encoding: 'utf8' });
    const { urls, status, call } = JSON.parse(out) as { urls: string[]; status: string; call: string };
    const loaded = urls.map((u) => (u.startsWith('file:') ? relative(ROOT, fileURLToPath(u)) : u));
    expect(loaded.filter((u) => SERVER.test(u) || u.startsWith('node:'))).toEqual([]);
    expect([...new Set(loaded)].sort()).toEqual(EXPECTED);
    expect([status, call]).toEqual(['function', 'function']);
  });
});
