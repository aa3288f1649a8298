// Vectors of reference-names.md §7.1 [VERIFIED] and §7.2 [COMPUTED], §1.3/§1.4 primitives.
import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { addressFromText, addressToText } from '../../src/formats/address.js';
import { NAME_REWARD_POOL_ADDRESS } from '../../src/formats/constants.js';
import { encodeDataRecord, encodeDataRecordBody, dataRecordChecksum } from '../../src/names/data-record.js';
import { nameId, nameLabels, recordKeyId } from '../../src/names/id.js';
import { merkleRoot } from '../../src/formats/merkle.js';
import { decodeNameRecord, encodeNameRecord, nameRecordChecksum, type NameRecord } from '../../src/names/name-record.js';
import { decodeNamePayload, encodeNamePayload, NameOp } from '../../src/names/payloads.js';
import { decryptRecordValue, encryptRecordValue, recordValueKey } from '../../src/names/record-crypto.js';
import { registrationCost } from '../../src/names/fees.js';
import { CONSENSUS_NAME_PARAMS } from '../../src/names/params.js';

const TEST_ID =
  '409be670f26e3a9d0fa3e4da555e334e7b5db53d6fd88e9e2e13d5b6a0f5e3ed2166b39cf6dce8e8282a30ae5e11bab9d92676d134fe5edff4c73235e2aec6b7c5';
const MAIN_TEST_ID =
  '4038b0f9a4bf6c8d519ee19958a5344d7e3f4bc41a32594ebcefdac29c330f6f99fdf156a1a3847a603d8eef46cdc26721c51d02a206a4c496ffcac283d732d7e0';
const DOCS_ADDRESS = '01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645';
const NONCE = fromHex('000102030405060708090a0b');

describe('name ids (§2.1, §7.1.1, §7.2)', () => {
  it('[VERIFIED] test on the test network', () => {
    expect(toHex(nameId('test', 'IxiTest'))).toBe(TEST_ID);
  });
  it.each([
    ['Ixian', 'test', MAIN_TEST_ID],
    ['Ixian', 'Test', MAIN_TEST_ID],
    ['Ixian', 'sub.test', MAIN_TEST_ID + '4099e560a3cfae5bc0bffebf6261a6c30beafc8ea8388f09da0433382849891a3f0dc3035dc72a0f018882d9e325cb3e9fa73774ff6f84598599538885ff2d12e3'],
    ['Ixian', 'bücher', '406d2f5ade307a0626448ee7161e49a830f48cd8daa4bc45897b5e548074614fe4e3fd523a0e2aed45c99a55f69c9d3025ada75744b271f86f1f703ebcb5a21a87'],
    ['IxiTest', 'sub.test', TEST_ID + '40816f7fb1de73bcf8e21127091d454afdc8083ed70d2bdf3c828e9a5bc2b7f18a8c8a3cdcf7200704a11c4a993f849858967eea8c790fe735ad94cd8889afc692'],
    ['IxiTest', 'subNameTest.test', TEST_ID + '4098458282e8d7728e4724933e86b0587e709ae6f6b1e07748da07213d22b2f1b13ba049cd1b228840bc7a35b8c008ba3a3ca733db0af61c3d1c3644dd1608fe3a'],
    ['IxiReg', 'test', '4079491c22cce5d10e60e2a876d02f1deced7939bc4924b63bb8b80850065f256465e9d44b762936281daf00a7aa6f3da5c3f7a8748992fbe6862c7b38233350b7'],
  ])('[COMPUTED] %s %s', (lock, name, id) => {
    expect(toHex(nameId(name, lock))).toBe(id);
  });
  it('rejects names the IDN mapping rejects, with the reason', () => {
    expect(() => nameId('', 'Ixian')).toThrow(/non-empty/);
    expect(() => nameId('test.', 'Ixian')).toThrow(/empty label/);
    expect(() => nameId('a..b', 'Ixian')).toThrow(/empty label/);
    expect(() => nameId('-test', 'Ixian')).toThrow(/hyphen/);
    expect(() => nameId('x'.repeat(64), 'Ixian')).toThrow(/at most 63/);
    expect(() => nameId('a\u0001b', 'Ixian')).toThrow(/control/);
    expect(() => nameId(42 as unknown as string, 'Ixian')).toThrow(TypeError);
    expect(nameLabels('A_b.@')).toEqual(['a_b', '@']);
  });
});

describe('record keys and values (§2.2, §2.3, §7.2)', () => {
  const id = fromHex(TEST_ID);
  it.each([
    ['abc', '9018f2368eef5f4bcc30b8d0e18591dfa39ba33f1f175c8250f77295b290ddff934b38e5745f891aa1dfb9dc02621d7b74fbcbe402c1608a6507c6bad5142eed'],
    ['def', '76813e70b1a5cd983a980bd51ed999dfc39b3df317f6d010c64d62373752d3f83835bcd9c043b485d76162bc844eaf6ec3da48f13d922187023e7cbbbcf88067'],
    ['ghi', 'cc65c483e6a01247866077a5ef2cf503a4b20997b871f033905f503ee881fbd5e39a40a0ccd0a43ef6204bccd145a80a29c08d2889da44f52f6b1da2af64510d'],
    ['@', '78abba6af6a0731d1ebc282224b401367f87c0abaedcf52c4b25d99cda8c65c5f1180b12623ce28f20cfef0ac5cb71768f04d7d1649e9dbbac21513ce3ef7987'],
  ])('[COMPUTED] record key %s of test (testnet)', (key, expected) => {
    expect(toHex(recordKeyId(id, key, 'IxiTest'))).toBe(expected);
  });
  it('[COMPUTED] mainnet test/abc', () => {
    expect(toHex(recordKeyId(fromHex(MAIN_TEST_ID), 'abc', 'Ixian'))).toBe(
      '0ab8398271f6b44a9f77c3f049d2317d728adf1f04d1a5d094e8b96c66ba16daf58458462cbf667be146f82f122014f46ca7150b7cf6d30615c9ff752d619c55',
    );
  });
  it('[COMPUTED] encryption with a fixed nonce, and decryption', () => {
    expect(toHex(recordValueKey('test', 'abc'))).toBe('daaeee792ac3e3eab6f7a91f75e6633c');
    const blob = encryptRecordValue('test', 'abc', 'testData1', NONCE);
    expect(toHex(blob)).toBe('000102030405060708090a0b3ad83ca20e6e49e25c253f20412a58bdedf2dc4592de6e2b21');
    expect(Buffer.from(decryptRecordValue('test', 'abc', blob)!).toString()).toBe('testData1');
    expect(decryptRecordValue('test', 'abd', blob)).toBeNull();
    const tampered = blob.slice();
    tampered[20]! ^= 1;
    expect(decryptRecordValue('test', 'abc', tampered)).toBeNull();
    expect(decryptRecordValue('test', 'abc', new Uint8Array(5))).toBeNull();
  });
  it('decrypts the legacy 16-byte IV form', () => {
    const blob = encryptRecordValue('test', 'abc', 'legacy', NONCE);
    // Build a 16-byte-IV blob with node:crypto directly.
    const iv = new Uint8Array(16).fill(7);
    const c = createCipheriv('aes-128-gcm', recordValueKey('test', 'abc'), iv);
    const body = Buffer.concat([c.update('legacy'), c.final(), c.getAuthTag()]);
    const legacy = Buffer.concat([iv, body]);
    expect(Buffer.from(decryptRecordValue('test', 'abc', legacy)!).toString()).toBe('legacy');
    expect(blob.length).toBe(6 + 28);
  });
});

describe('data records, name records and Merkle roots (§3, §7.2)', () => {
  const id = fromHex(TEST_ID);
  const record = (key: string, ttl: number, value: string) => ({
    key: recordKeyId(id, key, 'IxiTest'),
    ttl,
    data: encryptRecordValue('test', key, value, NONCE),
    checksum: null,
  });
  const abc = record('abc', 2, 'testData1');
  const def = record('def', 3, 'testData2');
  const ghi = record('ghi', 3, 'testData3');
  const ABC_BODY =
    '409018f2368eef5f4bcc30b8d0e18591dfa39ba33f1f175c8250f77295b290ddff934b38e5745f891aa1dfb9dc02621d7b74fbcbe402c1608a6507c6bad5142eed0225000102030405060708090a0b3ad83ca20e6e49e25c253f20412a58bdedf2dc4592de6e2b21';
  const ABC_SUM =
    '0b09548b38ce48dc93ae2224253a51b61397bffc4627aa57710e4bebf66b853dabac11eca910993e555984f0dffbb37b5bfdf0b6013b65533e3e448c46abbf17';

  it('[COMPUTED] record bytes and checksums', () => {
    expect(toHex(encodeDataRecordBody(abc))).toBe(ABC_BODY);
    expect(encodeDataRecordBody(abc).length).toBe(104);
    expect(toHex(dataRecordChecksum(abc))).toBe(ABC_SUM);
    expect(toHex(encodeDataRecord(abc))).toBe(ABC_BODY + '00');
    expect(toHex(encodeDataRecord({ ...abc, checksum: fromHex(ABC_SUM) }))).toBe(ABC_BODY + '40' + ABC_SUM);
    expect(toHex(dataRecordChecksum(def))).toBe(
      '316d815e231327896fab669fb20667307bbdee1d9f63c2e537761b4c3a4337c1f3abe4499a0beed16d19fab20f692804cbff65ca23a2f43f8a8a77b1419f3c1a',
    );
    expect(toHex(dataRecordChecksum(ghi))).toBe(
      '0cf16005a3fe6eaf9a8ff5da7eb4723a271701590b178d1e331f5378641ad8aa54b4f3c4ebceb39158fb41946ab8b6fd96f2bf2ca89f1e1a6b8d5ed7355bba89',
    );
  });
  it('[COMPUTED] Merkle roots of the record checksums', () => {
    const sums = [abc, def, ghi].map(dataRecordChecksum);
    expect(merkleRoot([])).toBeNull();
    expect(merkleRoot([sums[0]!])).toEqual(sums[0]);
    expect(toHex(merkleRoot(sums.slice(0, 2))!)).toBe(
      '3c995e6a30b117fd64c10e6c1a1d8bcf33f00d219e4ede324fc26de3835f706274eff5328252e0c05f6bc5dd8b046be717c8d053a92f2ddf6a779d11c3590030',
    );
    expect(toHex(merkleRoot(sums)!)).toBe(
      'e1dc0b7513fed7319ac653c12ca234f020118d5f189a11f721c40e3f9a2b366df5b1e5e35ad6c0d61bf64246befd12dcc661db45a868448c818a0be572f6dc90',
    );
  });

  const docsRecord = (): NameRecord => ({
    id,
    registrationBlockHeight: 404n,
    capacity: 10,
    nextPkHash: fromHex(DOCS_ADDRESS),
    recoveryHash: fromHex(DOCS_ADDRESS),
    sequence: 0n,
    allowSubnames: false,
    subnamePrice: 0n,
    subnameFeeRecipient: null,
    dataRecords: [],
    dataMerkleRoot: null,
    signaturePk: null,
    signature: null,
    expirationBlockHeight: 864_404n,
    updatedBlockHeight: 404n,
  });
  it('[COMPUTED] name record forms and checksums', () => {
    const r = docsRecord();
    const sig = encodeNameRecord(r, 'forSignature');
    expect(sig.length).toBe(171);
    expect(toHex(sig)).toBe(`0141${TEST_ID}fc94010a2d${DOCS_ADDRESS}2d${DOCS_ADDRESS}0000010000000000`);
    expect(toHex(nameRecordChecksum(r))).toBe(
      'ce2885773dd88fc10829fcf198b9f96fad2c57be7cbd7d617b5343c888aec5cf5f24267915458a33e9bdd5a913a5686f6a8018eaf9d6c9fdabebebabf0b4d233',
    );
    expect(toHex(nameRecordChecksum(r, 'forMerkle'))).toBe(
      '8ce55b2e3d5234f94f0a2fa9f348419bc25d712ce6f65b137a076ecc98d680af81ae60cc937a5b87ff74c18e3af5912f6d79d070c19fe2c70080fdd58a834a9b',
    );
    const full = encodeNameRecord(r, 'full');
    expect(full.length).toBe(179);
    expect(toHex(nameRecordChecksum(r, 'full'))).toBe(
      '52315e95b3ebfe4ce62410d176188d4f3bb0c579f5fdd0f4a2053ed579b1b58bc83abb7331585b87569ed7dd7599dbe0b64e63e1570cd54d80349cf151ead99b',
    );
    expect(decodeNameRecord(full)).toEqual(r);
    expect(() => decodeNameRecord(full.subarray(0, 178))).toThrow(/updatedBlockHeight/);
    expect(() => decodeNameRecord(Uint8Array.from([...full, 0]))).toThrow(/trailing/);
  });
  it('[COMPUTED] states to sign (§7.2)', () => {
    const withRecords = { ...docsRecord(), sequence: 1n, dataRecords: [abc, def, ghi] };
    withRecords.dataMerkleRoot = merkleRoot(withRecords.dataRecords.map(dataRecordChecksum));
    expect(toHex(nameRecordChecksum(withRecords))).toBe(
      '7272e10b8e10922c30d87d7305c8caabe1976e2521eebdbfdd905378b6627b5e8a841ad94afd0611b2c20484cbac9a33a4454e278282b92ba646aef4c727e604',
    );
    expect(toHex(nameRecordChecksum({ ...docsRecord(), sequence: 1n, capacity: 200 }))).toBe(
      '46916b1d42bf183750c007fb0981b7bbd45442f621ac358b5aaa3da560f6b5f94e48b352aabae160a400f09aa8f04a05b6199c64ffa791664a76be6334d0eae1',
    );
    const toggled = {
      ...docsRecord(),
      sequence: 1n,
      allowSubnames: true,
      subnamePrice: 100_000n * 100_000_000n,
      subnameFeeRecipient: fromHex(DOCS_ADDRESS),
    };
    expect(toHex(nameRecordChecksum(toggled))).toBe(
      '1dd76b3aa4e0209448fcc1ce4ab7a4df3f5dc0478f0e0942e0dfe07ff48293554d73fc418aca10e27b196b1aac8bcfcbae1494132764d208866b29bc93100805',
    );
  });
});

describe('payloads (§4.3, §7.1, §7.2)', () => {
  const id = fromHex(TEST_ID);
  const owner = fromHex(DOCS_ADDRESS);
  it('[VERIFIED] the register payload of the docs example, and its cost', () => {
    const payload = {
      op: NameOp.Register,
      id,
      registrationTimeInBlocks: 864_000,
      capacity: 10,
      recoveryHash: owner,
      nextPkHash: owner,
    } as const;
    const hex = `0141${TEST_ID}fd002f0d000a2d${DOCS_ADDRESS}2d${DOCS_ADDRESS}`;
    expect(hex.length / 2).toBe(165);
    expect(toHex(encodeNamePayload(payload))).toBe(hex);
    expect(decodeNamePayload(fromHex(hex))).toEqual(payload);
    expect(registrationCost(864_000, 10, CONSENSUS_NAME_PARAMS)).toBe(50_000n * 100_000_000n);
  });
  it('[VERIFIED] the extend payload of the docs example', () => {
    const hex = `0341${TEST_ID}fd002f0d00`;
    expect(toHex(encodeNamePayload({ op: NameOp.Extend, id, extensionTimeInBlocks: 864_000 }))).toBe(hex);
    expect(decodeNamePayload(fromHex(hex))).toEqual({ op: NameOp.Extend, id, extensionTimeInBlocks: 864_000 });
  });
  const signed = { sequence: 1n, nextPkHash: owner, sigPk: Uint8Array.of(0xaa), sig: Uint8Array.of(0xbb) };
  it.each([
    ['changeCapacity', { op: NameOp.ChangeCapacity, id, newCapacity: 200, ...signed }, `0441${TEST_ID}c8012d${DOCS_ADDRESS}01aa01bb`],
    ['recover', { op: NameOp.Recover, id, newRecoveryHash: owner, ...signed }, `0541${TEST_ID}2d${DOCS_ADDRESS}012d${DOCS_ADDRESS}01aa01bb`],
    [
      'toggle',
      { op: NameOp.ToggleAllowSubnames, id, allowSubnames: true, subnamePrice: 100_000n * 100_000_000n, subnameFeeRecipient: owner, ...signed },
      `0641${TEST_ID}010600a0724e18092d${DOCS_ADDRESS}012d${DOCS_ADDRESS}01aa01bb`,
    ],
  ] as const)('[COMPUTED] %s structural example', (_n, payload, hex) => {
    expect(toHex(encodeNamePayload(payload))).toBe(hex);
    expect(decodeNamePayload(fromHex(hex))).toEqual(payload);
  });
  it('reward-pool address (§1.8)', () => {
    expect(toHex(addressFromText(NAME_REWARD_POOL_ADDRESS))).toBe('000abfd0012f36c973bc10b9405f7e1c388a6b57bb5517f32d2f641cfd08ba0293');
    expect(addressToText(fromHex(DOCS_ADDRESS))).toBe('4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK');
  });
});
