// The method table drives dispatch, rpc.discover, the typed client and the README: they must agree.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { METHODS } from '../../src/rpc/methods/index.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { openRpcDocument } from '../../src/rpc/openrpc.js';
import { toJson } from '../../src/rpc/envelope.js';
import { CLIENT_VERSION, OPERATIONS } from '../../src/client/operations.js';
import { CLIENT_OPERATIONS_FILE, CLIENT_SCHEMA_FILE, clientSchemaSource, OPS_END, OPS_START, OPTIONS_END, OPTIONS_START, clientOperationsSource, operationsMarkdown } from '../../src/cli/docs-rpc.js';
import { optionsMarkdown } from '../../src/config/help.js';
import { silentLogger } from '../../src/log/logger.js';
import { EVENT_TOPICS, TOPIC_EVENTS } from '../../src/rpc/events.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const between = (start: string, end: string) => readme.slice(readme.indexOf(start) + start.length, readme.indexOf(end)).trim();

describe('method table', () => {
  it('is a valid table: unique names, summaries, described parameters', () => {
    expect(() => new Dispatcher({ methods: METHODS, context: {}, log: silentLogger() })).not.toThrow();
    expect(METHODS.map((m) => m.name)).toContain('rpc.discover');
  });

  it('gives every operation and parameter a schema in the OpenRPC document', () => {
    const doc = openRpcDocument(METHODS) as { methods: { name: string; params: { name: string; schema: unknown }[]; result: { schema: unknown } }[] };
    expect(doc.methods.map((m) => m.name)).toEqual(METHODS.map((m) => m.name));
    for (const m of doc.methods) {
      for (const p of m.params) expect(p.schema, `${m.name}.${p.name}`).toBeTypeOf('object');
      expect(m.result.schema, m.name).toBeTypeOf('object');
    }
  });

  it('writes integer bounds and defaults as JSON numbers, exact beyond 2^53 (JSON Schema requires numbers)', () => {
    const text = toJson(openRpcDocument(METHODS));
    // `blocknum` of verifyMiningSolution is a u64: its maximum was the string "18446744073709551615".
    expect(text).toContain('"maximum":18446744073709551615');
    const bounds: unknown[] = [];
    const walk = (v: unknown, key = ''): void => {
      if (['minimum', 'maximum'].includes(key)) bounds.push(v);
      if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(JSON.parse(text));
    expect(bounds.length).toBeGreaterThan(20);
    expect(bounds.filter((b) => typeof b !== 'number')).toEqual([]);
  });

  it('rpc.discover serves that document', async () => {
    const discover = METHODS.find((m) => m.name === 'rpc.discover')!;
    const doc = (await discover.handler({}, undefined as never)) as { openrpc: string; methods: unknown[] };
    expect(doc.openrpc).toBe('1.2.6');
    // The server is the node that served the document (it named 127.0.0.1:8081 on any port).
    const servers = (doc as unknown as { servers: { url: string }[] }).servers;
    expect(servers.map((s) => new URL(s.url, 'http://127.0.0.1:34999/rpc.discover').href)).toEqual(['http://127.0.0.1:34999/']);
    expect(doc.methods).toHaveLength(METHODS.length);
  });

  it("marks contact messaging 'client only' in the Relay/client column (a relay, like a master, refuses it)", () => {
    const rows = operationsMarkdown(METHODS).split('\n');
    for (const name of ['addContact', 'contacts', 'getLastMessages', 'sendAppMessage']) expect(rows.find((r) => r.startsWith(`| \`${name}\` |`))).toContain('| client only |');
    expect(rows.find((r) => r.startsWith('| `status` |'))).toContain('| yes |');
  });

  it('matches the client schema src/client/schema.ts (regenerate with npm run docs:rpc)', async () => {
    expect(await clientSchemaSource()).toBe(readFileSync(new URL(`../../${CLIENT_SCHEMA_FILE}`, import.meta.url), 'utf8'));
  }, 60_000);

  it('matches the README operation list (regenerate with npm run docs:rpc)', () => {
    expect(between(OPS_START, OPS_END)).toBe(operationsMarkdown(METHODS));
  });

  it('matches the README flag reference (regenerate with npm run docs:rpc)', () => {
    expect(between(OPTIONS_START, OPTIONS_END)).toBe(optionsMarkdown());
  });

  it('matches the typed client operation list and version (regenerate with npm run docs:rpc)', () => {
    expect(readFileSync(new URL(`../../${CLIENT_OPERATIONS_FILE}`, import.meta.url), 'utf8')).toContain(clientOperationsSource(METHODS));
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(CLIENT_VERSION).toBe(pkg.version);
    // Every operation whose name is an identifier is a client method; rpc.discover goes through call.
    expect([...OPERATIONS, 'rpc.discover']).toEqual(METHODS.map((m) => m.name));
  });
});

describe('README event topics', () => {
  // The /events table under "Node events": a topic the node serves but the README leaves out sends
  // a user to the source to learn what `?topics=contacts,chat,…` (used in "Contact messaging") delivers.
  const start = readme.indexOf('| Topic | Events |');
  const table = readme.slice(start, readme.indexOf('\n\n', start));
  it.each(EVENT_TOPICS)('lists topic %s with each of its events', (topic) => {
    const row = table.split('\n').find((l) => l.startsWith(`| \`${topic}\` |`));
    expect(row, `README row for topic ${topic}`).toBeDefined();
    for (const event of TOPIC_EVENTS[topic]) expect(row, `${topic}: ${event}`).toContain(`\`${event}\``);
  });
});
