/**
 * Known-answer data of the transaction codec, with where each comes from.
 */
import { fromHex } from '../../src/formats/bytes.js';
import { DOCS_VERIFY_PUBLIC_KEY_HEX } from '../formats/docs-vectors.js';

/** The 528-byte public key of the docs `verify` example (reference-rpc-messaging.md §2.7, reference-formats.md §6.3). */
export const DOCS_PUBLIC_KEY = fromHex(DOCS_VERIFY_PUBLIC_KEY_HEX);

/**
 * §8.6 / §15.3 [VERIFIED]: the docs transfer on testnet. Its full form before the key (§15.3),
 * then the key, then `00` (no signature) and `00` (applied).
 */
export const TRANSFER_HEAD = '07000b0101000640624c88792d0000012d019090cd4cdcb9f32bddd452c71cbd95bf94f4335b8227aee8d93f0910309fe89fd9dd33cff492a3fcf04610610600203d88792d0000fd5eca0400fc1002';
/** Its preimage before the key (§8.6), lock `IxiTest` included. */
export const TRANSFER_PREIMAGE_HEAD = '4978695465737407000b0101000640624c88792d00012d019090cd4cdcb9f32bddd452c71cbd95bf94f4335b8227aee8d93f0910309fe89fd9dd33cff492a3fcf04610610600203d88792d00fd5eca0400fc1002';
export const TRANSFER_CHECKSUM = {
  test: 'c81b2017498e7c838d1d2d960c80e2c18a102959680414dd37ef143bcc777d7796b171d873683f93425a91fd', // [VERIFIED]
  main: '02876d9fb60cbb3cc8f63d92a10dc4f8a34ff66d64764b73560c7a6d2509c06515bcb7a926d8dcd2c5e7a645', // [COMPUTED]
  reg: '11eb88bfa2846bbd660e696f6deed66a8fdcfc96a0fcab405747c4ae7dd4b91f69c5d0966a90ca543f43c8c2', // [COMPUTED]
} as const;
export const TRANSFER_ID = '11-284bKK4GvGV9stfEGqu1CP4A9T3tTzrbkUsUd2JestPVE3KDPM5Um7sn3Dfv4';
/** Recipient text of the transfer (`4L5vswa8…Dbufr`, §7.9). */
export const TRANSFER_TO = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
/** Primary address of DOCS_PUBLIC_KEY (§15.2). */
export const DOCS_KEY_ADDRESS = '4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK';

/** The unsigned full form (609 bytes, §15.3). */
export const transferUnsigned = (): Uint8Array =>
  Uint8Array.from([...fromHex(TRANSFER_HEAD), ...DOCS_PUBLIC_KEY, 0, 0]);

/** The signed full form (1123 bytes, §8.6): `fc0002` ‖ a 512-byte signature instead of the first trailing `00`. */
export function transferSigned(signature = new Uint8Array(512).map((_, i) => (i * 7 + 3) & 0xff)): Uint8Array {
  return Uint8Array.from([...fromHex(TRANSFER_HEAD), ...DOCS_PUBLIC_KEY, 0xfc, 0x00, 0x02, ...signature, 0]);
}

/**
 * §8.6 / §15.3 [VERIFIED]: the docs name registration (type 4) on testnet. Preimage before the key;
 * its `data` (165 bytes in the docs) is not covered by the checksum, so any data gives the same id.
 */
export const REGNAME_PREIMAGE_HEAD = '497869546573740704fc930101010006409248278c04000121000abfd0012f36c973bc10b9405f7e1c388a6b57bb5517f32d2f641cfd08ba029306005039278c0400fc589ffc1002';
export const REGNAME_CHECKSUM = 'ae7c44383cb5a488088abc188f06eb3bf652d4e90922019da84e34e0f2c37b80aff6b83761f8d260b0c93b91';
export const REGNAME_ID = '403-yjSY9heSFDLcrvu7yXu3jfKkw4xJoe6YpCULZw3zC4FS89YCEseFByShUANt';

/** The name registration's full form with the given `data` in its one output (row 5d). */
export function regNameWith(data: Uint8Array): Uint8Array {
  // rows 1–5c from the preimage (lock removed), the reserved 4d byte inserted after 4c
  const rows = fromHex(REGNAME_PREIMAGE_HEAD.slice(14));
  const inputEnd = 1 + 1 + 3 + 1 + 2 + 7 + 1; // version, type, height, count, key, amount, 4c
  const slotEnd = rows.length - 3 - 3; // before nonce (fc589f) and key length (fc1002)
  const dataRow = data.length ? [...varintBytes(data.length), ...data] : [0];
  return Uint8Array.from([
    ...rows.slice(0, inputEnd), 0, ...rows.slice(inputEnd, slotEnd), ...dataRow,
    ...rows.slice(slotEnd), ...DOCS_PUBLIC_KEY, 0, 0,
  ]);
}

function varintBytes(n: number): number[] {
  if (n < 0xf8) return [n];
  if (n <= 0xffff) return [0xfc, n & 0xff, n >> 8];
  return [0xfd, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
}
