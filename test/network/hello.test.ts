import { beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/formats/rsa.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { decodeFrame } from '../../src/network/protocol/frame.js';
import {
  buildHello,
  checkHello,
  CLOSE_REASONS,
  closeReasonOfCode,
  closeText,
  decodeHello,
  PROTOCOL_VERSION,
  type HelloIdentity,
} from '../../src/network/protocol/hello.js';
import { GENESIS, makeIdentity, type TestIdentity } from './helpers.js';

let A: TestIdentity;
let B: TestIdentity;
beforeAll(async () => {
  [A, B] = await Promise.all([makeIdentity(), makeIdentity()]);
});

const NOW = 1_700_000_000_000;
const theirChallenge = new Uint8Array(32).fill(4);
const ownChallenge = new Uint8Array(32).fill(5);

function identity(over: Partial<HelloIdentity> = {}): HelloIdentity {
  return {
    protocolVersion: PROTOCOL_VERSION,
    network: 'reg',
    genesisChecksum: GENESIS,
    nodeType: 'M',
    address: A.address,
    publicKey: A.publicKey,
    productVersion: 'dltnode-0.1.0',
    timestamp: BigInt(NOW / 1000),
    endpoint: '127.0.0.1:10234',
    height: 42n,
    tipChecksum: new Uint8Array(64).fill(2),
    ...over,
  };
}

function hello(over: Partial<HelloIdentity> = {}, sign = A.sign) {
  const f = decodeFrame(buildHello(MessageCode.hello, identity(over), { challenge: ownChallenge }, theirChallenge, sign));
  return decodeHello(MessageCode.hello, f.payload);
}

const expectations = (over = {}) => ({
  network: 'reg' as const,
  genesisChecksum: GENESIS,
  challenge: theirChallenge,
  ownAddress: B.address,
  nowMs: NOW,
  verify: verifySignature,
  ...over,
});

describe('hello build and check', () => {
  it('a signed hello decodes to its fields and passes', async () => {
    const h = hello();
    expect(h.endpoint).toBe('127.0.0.1:10234');
    expect(h.height).toBe(42n);
    expect(Buffer.from(h.challenge!).equals(Buffer.from(ownChallenge))).toBe(true);
    expect(await checkHello(h, expectations())).toBeNull();
  });

  it('helloData carries the observed address', async () => {
    const f = decodeFrame(buildHello(MessageCode.helloData, identity(), { observedAddress: '10.0.0.9:51234' }, theirChallenge, A.sign));
    const h = decodeHello(MessageCode.helloData, f.payload);
    expect(h.observedAddress).toBe('10.0.0.9:51234');
    expect(await checkHello(h, expectations())).toBeNull();
  });

  const cases: [string, () => Promise<unknown>, string][] = [
    ['deprecated', async () => checkHello(hello({ protocolVersion: 0 }), expectations()), 'deprecated'],
    ['wrong network', async () => checkHello(hello({ network: 'test' }), expectations()), 'wrongNetwork'],
    ['wrong genesis', async () => checkHello(hello({ genesisChecksum: new Uint8Array(64) }), expectations()), 'wrongGenesis'],
    ['key/address mismatch', async () => checkHello(hello({ address: B.address }), expectations()), 'authFailed'],
    ['self', async () => checkHello(hello(), expectations({ ownAddress: A.address })), 'selfConnection'],
    ['signature by another key', async () => checkHello(hello({}, B.sign), expectations()), 'badSignature'],
    ['signature over another challenge', async () => checkHello(hello(), expectations({ challenge: new Uint8Array(32) })), 'badSignature'],
    ['a reg hello at a test node', async () => checkHello(hello(), expectations({ network: 'test' })), 'wrongNetwork'],
    ['clock 31 s ahead', async () => checkHello(hello({ timestamp: BigInt(NOW / 1000 + 31) }), expectations()), 'clockSkew'],
    ['clock 31 s behind', async () => checkHello(hello({ timestamp: BigInt(NOW / 1000 - 31) }), expectations()), 'clockSkew'],
    ['a verifier that throws', async () => checkHello(hello(), expectations({ verify: () => { throw new Error('x'); } })), 'badSignature'],
  ];
  for (const [name, run, reason] of cases) {
    it(`rejects: ${name} → ${reason}`, async () => {
      expect(((await run()) as { reason: string }).reason).toBe(reason);
    });
  }

  it('30 s of skew is still accepted', async () => {
    expect(await checkHello(hello({ timestamp: BigInt(NOW / 1000 + 30) }), expectations())).toBeNull();
  });
});

describe('close reasons', () => {
  it('codes are unique, in 4000–4999, and reference bye codes map to 4000 + code', () => {
    const codes = Object.values(CLOSE_REASONS).map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [name, r] of Object.entries(CLOSE_REASONS)) {
      expect(r.code).toBeGreaterThanOrEqual(4000);
      expect(r.code).toBeLessThanOrEqual(4999);
      if (r.byeCode !== null) expect(r.code).toBe(4000 + r.byeCode);
      expect(closeReasonOfCode(r.code)).toBe(name);
    }
    expect(CLOSE_REASONS.tooFarBehind.code).toBe(4602);
    expect(closeReasonOfCode(1006)).toBeNull();
  });

  it('texts fit the 123-byte limit of a close frame', () => {
    const t = closeText('wrongNetwork', 'é'.repeat(200));
    expect(new TextEncoder().encode(t).length).toBeLessThanOrEqual(123);
    expect(t.startsWith('Wrong network: é')).toBe(true);
  });
});
