// Envelope parsing, parameter coercion and the bigint-safe serializer (DESIGN.md decisions 1–2).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorBody, operationFromPath, parseQuery, requestFromBody, requestFromQuery, successBody, toJson, EnvelopeError } from '../../src/rpc/envelope.js';
import { Dispatcher, MethodTableError, coerce, validateParams } from '../../src/rpc/dispatch.js';
import { RpcError, type MethodDef, type ParamDef } from '../../src/rpc/types.js';
import { silentLogger } from '../../src/log/logger.js';
import { fakeMethods } from './fake-table.js';

const p = (kind: ParamDef['kind'], extra: Partial<ParamDef> = {}): ParamDef => ({ name: 'x', kind, description: 'x', ...extra });
const rpcError = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RpcError);
    return e as RpcError;
  }
  throw new Error('expected an RpcError');
};

describe('query strings', () => {
  it('decodes keys and values, keeps the first of repeated keys, collects name[] keys', () => {
    expect(parseQuery('a=1&a=2&b=x%20y+z&records%5B%5D=k,1,v&records[]=k2,2,null&verbose&=skip&&')).toEqual({
      a: '1', b: 'x y z', 'records[]': ['k,1,v', 'k2,2,null'], verbose: '',
    });
  });
  it('refuses broken percent-encoding with -32600', () => {
    expect(rpcError(() => parseQuery('a=%zz')).code).toBe(-32600);
  });
  it('takes the operation from the first path segment', () => {
    expect(operationFromPath('/status')).toBe('status');
    expect(operationFromPath('/status/extra')).toBe('status');
    expect(operationFromPath('//status/')).toBe('status');
    expect(operationFromPath('/')).toBe('');
  });
  it('echoes a GET id (numbers as numbers)', () => {
    expect(requestFromQuery('status', 'id=12').id).toBe(12);
    expect(requestFromQuery('status', 'id=abc').id).toBe('abc');
    expect(requestFromQuery('status', '').id).toBeNull();
  });
  it('echoes a GET id that is no canonical integer as the text sent (hj: ?id=007 came back as 7)', () => {
    for (const text of ['007', '00', '-0', '+5', '1.0', '1e3', ' 5', '-007']) {
      expect(requestFromQuery('status', `id=${encodeURIComponent(text)}`).id, text).toBe(text);
    }
    expect(requestFromQuery('status', 'id=0').id).toBe(0);
    expect(requestFromQuery('status', 'id=-42').id).toBe(-42);
    // Past 2^53 the digits are kept: echoed as the same JSON integer, not rounded and not a string.
    const big = requestFromQuery('status', 'id=12345678901234567890').id;
    expect(errorBody({ code: -1, message: 'm' }, big)).toContain('"id":12345678901234567890');
  });
});

describe('POST bodies', () => {
  it('reads method, params and id; the URL operation is used when the body has no method', () => {
    expect(requestFromBody('', '{"method":"status","params":{"verbose":true},"id":5,"jsonrpc":"2.0"}')).toMatchObject({ method: 'status', params: { verbose: true }, id: 5 });
    expect(requestFromBody('txu', '{"params":{"count":"3"}}')).toMatchObject({ method: 'txu', params: { count: '3' }, id: null });
    expect(requestFromBody('txu', '{"method":"TXU"}').method).toBe('TXU');
  });
  it.each([
    ['{', -32700, null],
    ['[1]', -32600, null],
    ['{"method":5,"id":1}', -32600, 1],
    ['{"id":{}}', -32600, null],
    ['{"method":"x","params":[1],"id":2}', -32600, 2],
    ['{"id":3}', -32600, 3],
  ])('%s → %i', (body, code, id) => {
    const e = rpcError(() => requestFromBody('', body)) as EnvelopeError;
    expect(e.code).toBe(code);
    expect(e.id).toBe(id);
  });
  it('reads a body that starts with a UTF-8 byte order mark', () => {
    expect(requestFromBody('', '\ufeff{"method":"status","id":7}')).toMatchObject({ method: 'status', id: 7 });
  });
  it('refuses a body method that contradicts the URL', () => {
    expect(rpcError(() => requestFromBody('status', '{"method":"txu"}')).message).toMatch(/differs/);
  });
});

describe('parameter coercion', () => {
  it('booleans: absent false; "", true, 1 true; false, 0 false', () => {
    const def = fakeMethods.find((m) => m.name === 'status')!;
    expect(validateParams(def, {})).toEqual({ verbose: false, vv: false });
    for (const v of ['', 'true', 'TRUE', '1', true, 1]) expect(coerce(p('boolean'), v)).toBe(true);
    for (const v of ['false', '0', false, 0]) expect(coerce(p('boolean'), v)).toBe(false);
    expect(rpcError(() => coerce(p('boolean'), 'maybe')).message).toBe("Parameter 'x' must be true, false, 1 or 0");
  });
  it('integers: strings or JSON integers, bounds, bigint never rounded', () => {
    expect(coerce(p('integer'), ' 42 ')).toBe(42);
    expect(coerce(p('integer'), 42)).toBe(42);
    expect(coerce(p('integer', { bigint: true }), '18446744073709551615')).toBe(18446744073709551615n);
    expect(rpcError(() => coerce(p('integer', { bigint: true }), 2 ** 60)).message).toMatch(/exceeds 2\^53.*string/);
    expect(rpcError(() => coerce(p('integer'), '9007199254740993')).message).toMatch(/out of range/);
    expect(rpcError(() => coerce(p('integer'), 1.5)).message).toMatch(/integer/);
    expect(rpcError(() => coerce(p('integer'), '12abc')).message).toBe("Parameter 'x' must be a decimal integer");
    expect(rpcError(() => coerce(p('integer', { min: 1, max: 10 }), '0')).message).toBe("Parameter 'x' must be at least 1");
    expect(rpcError(() => coerce(p('integer', { min: 1, max: 10 }), 11)).message).toBe("Parameter 'x' must be at most 10");
  });
  it('strings, hex and string lists', () => {
    expect(rpcError(() => coerce(p('string'), 5)).message).toBe("Parameter 'x' must be a string");
    expect(rpcError(() => coerce(p('string'), ['a', 'b'])).message).toMatch(/single value/);
    expect(coerce(p('hex'), '00FFab')).toEqual(new Uint8Array([0, 255, 171]));
    expect(rpcError(() => coerce(p('hex'), '0')).message).toMatch(/even number of hex digits/);
    expect(rpcError(() => coerce(p('hex'), 'zz')).message).toMatch(/hex/);
    expect(coerce(p('string[]'), 'a')).toEqual(['a']);
    expect(rpcError(() => coerce(p('string[]'), ['a', 1])).message).toMatch(/list of strings/);
  });
  it('missing required parameters use the exact message of the definition, else the default one', () => {
    const echo = fakeMethods.find((m) => m.name === 'echo')!;
    expect(rpcError(() => validateParams(echo, {})).message).toBe('text parameter is missing');
    expect(validateParams(echo, { text: 'a', count: null })).toEqual({ text: 'a', count: 50 });
    const def: MethodDef = { name: 'm', group: 'g', summary: 's', params: [p('string', { required: true, name: 'name' })], result: { description: 'r' }, handler: () => 1 };
    expect(rpcError(() => validateParams(def, {})).message).toBe("Missing parameter 'name'");
  });
});

describe('JSON serialization', () => {
  it('writes bigints exactly and otherwise matches JSON.stringify', () => {
    expect(toJson({ a: 2n ** 64n, b: [1n, undefined, 'x'], c: undefined, d: { toJSON: () => 'j' } })).toBe('{"a":18446744073709551616,"b":[1,null,"x"],"d":"j"}');
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(toJson(v)).toBe(JSON.stringify(v));
    }), { numRuns: 200 });
    fc.assert(
      fc.property(fc.jsonValue(), fc.bigInt(), (v, b) => {
        expect(toJson({ v, b })).toBe(`{"v":${JSON.stringify(v)},"b":${b}}`);
      }),
      { numRuns: 200 },
    );
  });
  it('echoes a numeric id the parser would round exactly as it was written', () => {
    // 12345678901234567890 was echoed 12345678901234567000 and 1e400 null: a caller matching
    // answers by id found none.
    const echo = (body: string) => successBody('1', requestFromBody('', body).id);
    expect(echo('{"method":"status","id":12345678901234567890}')).toBe('{"result":1,"id":12345678901234567890,"error":null}');
    expect(echo('{"method":"status","id" : -18446744073709551617}')).toBe('{"result":1,"id":-18446744073709551617,"error":null}');
    expect(echo('{"method":"status","id":1e400}')).toBe('{"result":1,"id":1e400,"error":null}');
    expect(echo('{"params":{"id":1,"x":"\\"id\\":2"},"id":9007199254740993,"method":"status"}')).toBe('{"result":1,"id":9007199254740993,"error":null}');
    expect(echo('{"method":"status","id":99999999999999999999,"id":12345678901234567891}')).toBe('{"result":1,"id":12345678901234567891,"error":null}');
    expect(echo('{"method":"status","id":1.5}')).toBe('{"result":1,"id":1.5,"error":null}');
    expect(echo('{"method":"status","id":7}')).toBe('{"result":1,"id":7,"error":null}');
    const failed = (() => {
      try {
        requestFromBody('', '{"method":5,"id":123456789012345678901}');
      } catch (e) {
        return e as EnvelopeError;
      }
    })();
    expect(errorBody({ code: -32600, message: 'm' }, failed!.id)).toBe('{"result":null,"id":123456789012345678901,"error":{"code":-32600,"message":"m"}}');
  });

  it('orders response members result, id, error', () => {
    expect(successBody('1', 'a')).toBe('{"result":1,"id":"a","error":null}');
    expect(errorBody({ code: -32602, message: 'm' }, 3)).toBe('{"result":null,"id":3,"error":{"code":-32602,"message":"m"}}');
  });
});

describe('dispatcher', () => {
  const log = silentLogger();
  it('refuses a table with duplicate names or undescribed parameters', () => {
    const m = fakeMethods[0]!;
    expect(() => new Dispatcher({ methods: [m, { ...m, name: 'STATUS' }], context: {}, log })).toThrow(MethodTableError);
    expect(() => new Dispatcher({ methods: [{ ...m, params: [p('string', { description: '' })] }], context: {}, log })).toThrow(/no description/);
  });
  it('never throws, whatever the parameters (property)', async () => {
    const d = new Dispatcher({ methods: fakeMethods.filter((m) => m.name !== 'slow'), context: { height: 1n }, log });
    const names = [...fakeMethods.map((m) => m.name), 'nope', 'STATUS'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), fc.dictionary(fc.constantFrom('text', 'count', 'big', 'data', 'verbose', 'kind', 'id', 'records[]', 'kb'), fc.jsonValue()), fc.constantFrom('GET', 'POST'), async (method, params, httpMethod) => {
        const reply = await d.dispatch({ method, params, id: 1, httpMethod: httpMethod as 'GET' | 'POST', idFromQuery: false });
        const body = JSON.parse(reply.body);
        expect(Object.keys(body)).toEqual(['result', 'id', 'error']);
        expect([200, 405]).toContain(reply.status);
        if (body.error) expect(body.result).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
