/** `dltnode --version` (practice P53): every component a bug report needs. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { SIMD_SUPPORTED, WASM_BUILD_DIR, coreFlavour } from '../core/wasm.js';
import { loadUws } from '../rpc/transport-uws.js';

/** First 12 hex digits of SHA-256 of a built WASM file, or why it is missing. */
function buildHash(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(join(WASM_BUILD_DIR, file))).digest('hex').slice(0, 12);
  } catch {
    return 'not built (run npm run build)';
  }
}

export function versionReport(): string {
  const flavour = coreFlavour();
  const uws = loadUws();
  return [
    `${PACKAGE_NAME} ${PACKAGE_VERSION}`,
    `wasm core: ${flavour} build (engine SIMD ${SIMD_SUPPORTED ? 'supported' : 'not supported'}), sha256 ${buildHash(`core.${flavour}.wasm`)}`,
    `wasm codec: sha256 ${buildHash('codec.wasm')}`,
    `rpc transport: node:http by default; --rpc-transport uws ${uws instanceof Error ? `unavailable (uWebSockets.js does not load: ${uws.message.split('\n')[0]})` : 'available (native)'}`,
    `node: ${process.version} (V8 ${process.versions.v8}, ${process.platform}-${process.arch})`,
  ].join('\n');
}
