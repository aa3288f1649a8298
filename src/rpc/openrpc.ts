/**
 * The OpenRPC document of the node, generated from the method table (practice P34) and served by
 * `rpc.discover`. Parameter schemas describe what the envelope accepts (DESIGN.md decision 1): JSON
 * values of the right kind, or their text form as GET delivers them.
 */
import { PACKAGE_VERSION } from '../version.js';
import type { MethodDef, ParamDef } from './types.js';

export const OPENRPC_VERSION = '1.2.6';

type Schema = Record<string, unknown>;

/**
 * Bounds and defaults may be bigints: plain numbers within 2^53, else kept as bigints, which the
 * envelope writes as exact JSON integers (18446744073709551615). JSON Schema requires `minimum`,
 * `maximum` and an integer's `default` to be numbers; a decimal string there made the document
 * invalid for schema tools.
 */
function jsonNumber(v: number | bigint): number | bigint {
  return typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** JSON Schema of one parameter kind. */
export function paramSchema(p: ParamDef): Schema {
  switch (p.kind) {
    case 'string':
      return { type: 'string' };
    case 'integer': {
      const n: Schema = { type: 'integer' };
      if (p.min !== undefined) n.minimum = jsonNumber(p.min);
      if (p.max !== undefined) n.maximum = jsonNumber(p.max);
      return { oneOf: [n, { type: 'string', pattern: '^\\s*[+-]?\\d+\\s*$', description: 'decimal integer (required above 2^53)' }] };
    }
    case 'boolean':
      return { oneOf: [{ type: 'boolean' }, { enum: ['', 'true', 'false', '1', '0', 1, 0] }], description: 'absent = false; present without value = true' };
    case 'hex':
      return { type: 'string', pattern: '^([0-9a-fA-F]{2})*$' };
    case 'string[]':
      return { type: 'array', items: { type: 'string' } };
  }
}

function describeParam(p: ParamDef): Schema {
  const out: Schema = { name: p.name, description: p.description, required: p.required === true, schema: paramSchema(p) };
  if (p.default !== undefined) {
    const d = p.default;
    (out.schema as Schema).default = typeof d === 'bigint' ? jsonNumber(d) : d;
  }
  return out;
}

/** The OpenRPC document for a method table. */
export function openRpcDocument(methods: readonly MethodDef<unknown>[]): Schema {
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'dltnode RPC',
      version: PACKAGE_VERSION,
      description:
        'POST /<operation> with {"method","params","id"}, GET /<operation>?param=value, or POST / with the method in the body. ' +
        'Responses are {"result","id","error"}; RPC errors travel in HTTP 200 with result null.',
    },
    // Relative (OpenRPC 1.2.6 Server Object: relative to where the document is served): the node
    // that serves it, on whatever host and port it listens, not the default 127.0.0.1:8081.
    servers: [{ name: 'this node', url: '/', summary: 'The node that served this document' }],
    methods: methods.map((m) => {
      const entry: Schema = {
        name: m.name,
        summary: m.summary,
        tags: [{ name: m.group }],
        paramStructure: 'by-name',
        params: m.params.map(describeParam),
        result: { name: 'result', description: m.result.description, schema: m.result.schema ?? {} },
      };
      if (m.maturity) entry['x-maturity'] = m.maturity;
      if (m.postOnly) entry['x-post-only'] = true;
      return entry;
    }),
  };
}
