// What `npm pack` puts in the package: everything the node reads at run time (the WASM builds,
// the web wallet, dist/ with the typed client), and not the tests or benchmarks. Without the
// .wasm files an installed package could import `dltnode/client` but `dltnode start` failed
// ("WASM build …/build/core.simd.wasm is missing").
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm pack', () => {
  it('packs the run-time files and leaves out tests and benchmarks', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
    const files = new Set((JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    for (const wasm of ['core.simd.wasm', 'core.scalar.wasm', 'codec.wasm']) expect(files).toContain(`build/${wasm}`);
    for (const f of ['dist/cli/main.js', 'dist/index.js', 'dist/client/index.js', 'dist/client/index.d.ts', 'web/index.html', 'web/app.js', 'package.json', 'README.md']) expect(files).toContain(f);
    expect([...files].filter((f) => /^(test|bench)\//.test(f))).toEqual([]);
  });
});
