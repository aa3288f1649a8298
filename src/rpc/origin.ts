/**
 * Browser guard of the RPC listener: what a web page the operator visits may make the node do.
 * The RPC moves the node wallet's funds, and a browser sends some cross-origin requests without
 * asking first (an <img> or <iframe> GET, a no-cors fetch, a form POST) and opens WebSockets to
 * any origin; a page can also rebind its own DNS name to 127.0.0.1. Non-browser clients (curl,
 * scripts, QuIXI, pools) send no Origin and no Sec-Fetch-Site and are answered as before.
 *
 * Refused (403), nothing executed:
 * - a Host header naming neither an IP literal, `localhost` (or `*.localhost`), the --rpc-host
 *   name, nor a --rpc-vhost name (DNS rebinding; geth's --http.vhosts, default `localhost`);
 * - an Origin that is neither the node's own (`http(s)://` + Host) nor a --rpc-cors entry;
 * - a browser request without Origin that the browser marks as coming from another site or origin
 *   (`Sec-Fetch-Site: cross-site|same-site`: an <img>, <iframe> or link GET), unless --rpc-cors '*'.
 * An allowed foreign origin gets CORS headers and its preflight (OPTIONS) is answered; nothing else
 * does (the reference sends no CORS headers at all).
 */
import { isIP } from 'node:net';

/** The browser-facing headers of a request ('' when absent). */
export interface BrowserHead {
  method: string;
  host: string;
  origin: string;
  secFetchSite: string;
}

export interface BrowserGuardOptions {
  /** Foreign origins allowed to call the RPC from a browser (`https://app.example`, or '*'). */
  cors?: readonly string[];
  /** Host names (besides IP literals and localhost) the RPC answers to, or '*'. */
  vhosts?: readonly string[];
  /** The --rpc-host the server listens on: a name given there is allowed as a Host. */
  listenHost?: string;
}

export type BrowserVerdict =
  /** Go on; `cors` holds the headers for an allowed foreign origin (none otherwise). */
  | { ok: true; cors?: Record<string, string> }
  | { ok: false; message: string };

/** What an allowed foreign origin may send after its preflight. */
const CORS_METHODS = 'GET, POST';
const CORS_HEADERS = 'Content-Type, Authorization';
/** Seconds a browser may cache a preflight answer. */
const CORS_MAX_AGE = '600';
/** Sec-Fetch-Site values a browser gives a request it did not make for this origin's own page. */
const FOREIGN_SITES = new Set(['cross-site', 'same-site']);
const WILDCARD = '*';

/**
 * `scheme://host[:port]` as browsers send Origin (lower case, a default port left out, a non-ASCII
 * name as punycode: the URL's own origin); throws RangeError for anything more or less.
 */
export function checkCorsEntry(entry: string): string {
  if (entry === WILDCARD) return entry;
  let url: URL | null;
  try {
    url = new URL(entry);
  } catch {
    url = null;
  }
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new RangeError(`RPC CORS origin '${entry}' must be scheme://host[:port] (e.g. https://wallet.example, http://127.0.0.1:3000) or '*'`);
  }
  return url.origin;
}

/** A host name (letters, digits, '-', '.', '_') in lower case, or '*'; throws RangeError otherwise. */
export function checkVhostEntry(entry: string): string {
  const name = entry.toLowerCase();
  if (name === WILDCARD || /^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(name)) return name;
  throw new RangeError(`RPC virtual host '${entry}' must be a host name without port (e.g. node.lan) or '*'`);
}

/** The name part of a Host header value: `[::1]:8081` → `::1`, `Node.Lan:8081` → `node.lan`. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  // More than one colon without brackets is not a valid Host; keep it whole (it is then refused).
  return colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.slice(0, colon) : h;
}

export class BrowserGuard {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly anyHost: boolean;
  private readonly hosts: ReadonlySet<string>;

  constructor(opts: BrowserGuardOptions = {}) {
    const cors = (opts.cors ?? []).map(checkCorsEntry);
    this.anyOrigin = cors.includes(WILDCARD);
    this.origins = new Set(cors);
    const vhosts = (opts.vhosts ?? []).map(checkVhostEntry);
    this.anyHost = vhosts.includes(WILDCARD);
    this.hosts = new Set(opts.listenHost ? [...vhosts, hostName(opts.listenHost)] : vhosts);
  }

  /** True when the Host header may be answered (no Host at all: HTTP/1.0, never a browser). */
  hostAllowed(host: string): boolean {
    if (host === '' || this.anyHost) return true;
    const name = hostName(host);
    return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || this.hosts.has(name);
  }

  /** Why a Host `hostAllowed` refuses is refused; `who` names the listener ('the RPC answers'). */
  static hostRefusal(host: string, who: string): string {
    return `Host '${host}' is not allowed: ${who} IP addresses, localhost and --rpc-vhost names only (DNS rebinding protection); add --rpc-vhost ${hostName(host)} to allow it`;
  }

  /** Decides one HTTP request or WebSocket upgrade from its head. */
  judge(head: BrowserHead): BrowserVerdict {
    if (!this.hostAllowed(head.host)) return { ok: false, message: BrowserGuard.hostRefusal(head.host, 'the RPC answers') };
    if (head.origin === '') {
      if (this.anyOrigin || !FOREIGN_SITES.has(head.secFetchSite.toLowerCase())) return { ok: true };
      return { ok: false, message: `A browser request from another site (Sec-Fetch-Site: ${head.secFetchSite}) is not allowed to call this node; allow web origins with --rpc-cors` };
    }
    const origin = head.origin.toLowerCase();
    const host = head.host.toLowerCase();
    if (host !== '' && (origin === `http://${host}` || origin === `https://${host}`)) return { ok: true };
    if (this.anyOrigin || this.origins.has(origin)) {
      return { ok: true, cors: { 'Access-Control-Allow-Origin': head.origin, Vary: 'Origin' } };
    }
    return { ok: false, message: `Origin '${head.origin}' is not allowed to call this node: a web page from another site may not use its RPC; allow it with --rpc-cors ${head.origin}` };
  }

  /** Headers answering the CORS preflight (OPTIONS) of an allowed foreign origin. */
  static preflightHeaders(cors: Record<string, string>): Record<string, string> {
    return {
      ...cors,
      'Access-Control-Allow-Methods': CORS_METHODS,
      'Access-Control-Allow-Headers': CORS_HEADERS,
      'Access-Control-Max-Age': CORS_MAX_AGE,
    };
  }
}
