/**
 * Access control of the RPC listener (DESIGN.md decision 8; reference-rpc-messaging.md §1.6):
 * an optional list of allowed remote addresses (IPs or CIDR ranges), checked first, then optional
 * HTTP Basic users. With no users and no list every caller is let in (the listener then binds to
 * loopback unless the operator passes --rpc-public).
 */
import { BlockList, isIP } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';

export interface RpcUser {
  user: string;
  password: string;
}

export interface AuthOptions {
  users?: readonly RpcUser[];
  /** Allowed remote addresses: `127.0.0.1`, `::1`, `10.0.0.0/8`, `fd00::/8`. */
  allow?: readonly string[];
}

export type AuthDecision = 'ok' | 'forbidden' | 'unauthorized';

/** `user:password` → RpcUser; the password may contain ':' (the first colon splits). */
export function parseRpcUser(spec: string): RpcUser {
  const colon = spec.indexOf(':');
  if (colon <= 0 || colon === spec.length - 1) {
    throw new RangeError(`RPC user '${spec.slice(0, Math.max(colon, 0)) || spec}' must be written user:password (both non-empty)`);
  }
  return { user: spec.slice(0, colon), password: spec.slice(colon + 1) };
}

/** Adds one `IP` or `IP/prefix` entry to a BlockList; throws RangeError naming the entry otherwise. */
function addAllowEntry(list: BlockList, entry: string): void {
  const slash = entry.indexOf('/');
  const ip = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(ip);
  if (family === 0) throw new RangeError(`RPC allow entry '${entry}' is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (slash < 0) {
    list.addAddress(ip, type);
    return;
  }
  const prefixText = entry.slice(slash + 1);
  const prefix = Number(prefixText);
  const maxPrefix = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(prefixText) || prefix > maxPrefix) {
    throw new RangeError(`RPC allow entry '${entry}': the prefix length must be 0–${maxPrefix}`);
  }
  list.addSubnet(ip, prefix, type);
}

/** Checks one `IP` or `IP/prefix` entry (the --rpc-allow option's form); throws RangeError naming it otherwise. */
export function checkAllowEntry(entry: string): string {
  addAllowEntry(new BlockList(), entry);
  return entry;
}

/** Checks callers against the configured users and address list. Built once, used per request. */
export class AccessControl {
  private readonly allowList: BlockList | null;
  /** SHA-256 of `user:password` of each user: compared in constant time. */
  private readonly credentialDigests: Buffer[];

  constructor(opts: AuthOptions = {}) {
    const allow = opts.allow ?? [];
    if (allow.length > 0) {
      this.allowList = new BlockList();
      for (const entry of allow) addAllowEntry(this.allowList, entry);
    } else {
      this.allowList = null;
    }
    this.credentialDigests = (opts.users ?? []).map((u) => digest(`${u.user}:${u.password}`));
  }

  /** True when callers must present HTTP Basic credentials. */
  get requiresCredentials(): boolean {
    return this.credentialDigests.length > 0;
  }

  /** True when any restriction is configured (users or an address list). */
  get restricted(): boolean {
    return this.allowList !== null || this.credentialDigests.length > 0;
  }

  /** Decides one request from its remote address and `Authorization` header ('' when absent). */
  check(remoteAddress: string, authorization: string): AuthDecision {
    if (this.allowList !== null && !this.addressAllowed(remoteAddress)) return 'forbidden';
    if (this.credentialDigests.length === 0) return 'ok';
    return this.credentialsValid(authorization) ? 'ok' : 'unauthorized';
  }

  private addressAllowed(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.allowList!.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  private credentialsValid(header: string): boolean {
    if (header.length < 7 || header.slice(0, 6).toLowerCase() !== 'basic ') return false;
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const given = digest(decoded);
    let ok = false;
    // Every user is compared (no early exit), each in constant time.
    for (const d of this.credentialDigests) ok = timingSafeEqual(d, given) || ok;
    return ok;
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** True for loopback addresses and names: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
