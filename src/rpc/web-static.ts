/**
 * The web wallet's static files (issue 12 point 6): `GET /` → `web/index.html`, `GET /web/<file>` →
 * one of the files named in {@link WEB_FILES}, served by the RPC server behind its access control.
 *
 * Only the allow-list is served: a request path is compared with the list's names as a whole
 * string, never joined to a directory, so `..`, encoded slashes or absolute paths cannot reach any
 * other file (they are simply not names in the list → 404). The files are read once, when the
 * server is built (they are a few kilobytes); a file missing on disk is answered 404 and logged.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpReply } from './transport-api.js';

/** `web/` at the repository (package) root: two levels above this module in `src/rpc/` and `dist/rpc/`. */
export const DEFAULT_WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

/** The files served, with their content types. Add a file here to serve it. */
export const WEB_FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** Path prefix of the files; `/` itself serves index.html. */
export const WEB_PREFIX = '/web/';

/**
 * Headers of every file: revalidate on each load (the files change with the node's version, and
 * the page holds no secrets worth caching), no MIME sniffing, no framing (clickjacking of a page
 * that sends payments), scripts, styles and connections from this origin only.
 */
const FILE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

export interface WebOptions {
  /** Directory of the files (default {@link DEFAULT_WEB_DIR}). */
  dir?: string;
}

/** The loaded files; `reply(path)` answers a GET path of the web routes, undefined for other paths. */
export class WebFiles {
  private readonly files = new Map<string, { body: Uint8Array; contentType: string }>();
  /** Allow-listed names whose file could not be read (reported by the server's log). */
  readonly missing: string[] = [];

  constructor(opts: WebOptions = {}) {
    const dir = opts.dir ?? DEFAULT_WEB_DIR;
    for (const [name, contentType] of Object.entries(WEB_FILES)) {
      try {
        this.files.set(name, { body: readFileSync(join(dir, name)), contentType });
      } catch {
        this.missing.push(join(dir, name));
      }
    }
  }

  /** True for the paths this module answers: `/` and everything under `/web/`. */
  static handles(path: string): boolean {
    return path === '/' || path.startsWith(WEB_PREFIX);
  }

  reply(path: string): HttpReply | undefined {
    if (!WebFiles.handles(path)) return undefined;
    const name = path === '/' ? 'index.html' : path.slice(WEB_PREFIX.length);
    const file = Object.hasOwn(WEB_FILES, name) ? this.files.get(name) : undefined;
    if (!file) {
      return {
        status: 404,
        body: 'Not found: the web wallet serves only / and /web/{' + Object.keys(WEB_FILES).join(',') + '}\n',
        contentType: 'text/plain; charset=utf-8',
        headers: { 'X-Content-Type-Options': 'nosniff' },
      };
    }
    return { status: 200, body: file.body, contentType: file.contentType, headers: { ...FILE_HEADERS } };
  }
}
