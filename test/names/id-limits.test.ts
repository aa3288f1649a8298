// Name ids stay within their 256 bytes (reference-names.md §2.1: at most 3 labels of 65-byte
// sections), and IDNA maps full-width digits to ASCII instead of letting the WHATWG host parser
// read an all-digit name as an IPv4 address (issue 13).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NAME_LABELS, SECTION_LENGTH, idSections, nameId, nameLabels, recordKeyId } from '../../src/names/id.js';
import { MAX_NAME_ID_LENGTH } from '../../src/names/params.js';

describe('name id limits', () => {
  it('allows 3 labels and refuses 4 or more with a RangeError naming the rule', () => {
    expect(MAX_NAME_LABELS).toBe(3);
    expect(nameId('a.b.c', 'IxiReg').length).toBe(3 * SECTION_LENGTH);
    expect(() => nameId('a.b.c.d', 'IxiReg')).toThrow(new RangeError('name "a.b.c.d": a name has at most 3 labels (its id holds at most 256 bytes), got 4'));
    expect(() => nameId('ü.ü.ü.ü', 'IxiReg')).toThrow(/at most 3 labels/);
  });

  it('does not limit record keys, which are hashed', () => {
    expect(recordKeyId(nameId('test', 'IxiReg'), 'a.b.c.d.e', 'IxiReg').length).toBe(64);
  });

  it('maps full-width digits to ASCII digits, not to an IPv4 address', () => {
    expect(nameLabels('１２３')).toEqual(['123']);
    expect(nameLabels('０')).toEqual(['0']);
    expect(nameLabels('ab.１２３')).toEqual(['ab', '123']);
    expect(nameLabels('０ｘ１')).toEqual(['0x1']);
    expect(nameId('１２３', 'IxiReg')).toEqual(nameId('123', 'IxiReg'));
    expect(() => nameLabels('ｘ。')).toThrow(/empty label/);
  });

  it('gives any string a valid id of at most 256 bytes, or a RangeError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.array(fc.constantFrom('a', '１', '.', '。', '-', 'ü', '0', 'x'), { maxLength: 20 }).map((a) => a.join(''))), (name) => {
        let id: Uint8Array;
        try {
          id = nameId(name, 'IxiReg');
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError);
          return;
        }
        expect(id.length).toBeLessThanOrEqual(MAX_NAME_ID_LENGTH);
        expect(idSections(id).length).toBeLessThanOrEqual(MAX_NAME_LABELS);
      }),
      { numRuns: 2000 },
    );
  });
});

// §2.1: the reference lower-cases and runs .NET IdnMapping.GetAscii (STD3 rules off) over the whole
// name; it throws on an xn-- label that is not valid punycode, and passes @, space and : as typed.
describe('name labels as the reference maps them', () => {
  it('refuses xn-- labels that are not valid punycode, in any case, and keeps valid ones (same id as the Unicode form)', () => {
    for (const bad of ['xn--zz', 'XN--ZZ', 'xn--', 'xn--a', 'xn--ab-cd', 'ok.xn--zz', 'xn--zz.ok', 'xn--a@b']) {
      expect(() => nameLabels(bad), bad).toThrow(/is not valid punycode/);
    }
    expect(nameLabels('Xn--Bcher-Kva')).toEqual(['xn--bcher-kva']);
    expect(nameId('xn--bcher-kva', 'IxiReg')).toEqual(nameId('bücher', 'IxiReg'));
  });

  it('passes @, space, : and _ in ASCII labels, also next to a non-ASCII label', () => {
    expect(nameLabels('A@B')).toEqual(['a@b']);
    expect(nameLabels('a b:c_d')).toEqual(['a b:c_d']);
    expect(nameLabels('a@b.Bücher')).toEqual(['a@b', 'xn--bcher-kva']);
    expect(nameId('sub.a@b.bücher', 'IxiReg')).toEqual(nameId('sub.a@b.xn--bcher-kva', 'IxiReg'));
  });

  it('lower-cases one code point at a time as .NET ToLower does: a final capital sigma is σ, not ς (IDNA keeps the two apart)', () => {
    expect(nameLabels('ΟΔΟΣ')).toEqual(['xn--pxavbq']);
    expect(nameId('ΟΔΟΣ', 'IxiReg')).toEqual(nameId('οδοσ', 'IxiReg'));
    expect(nameId('ΟΔΟΣ', 'IxiReg')).not.toEqual(nameId('οδος', 'IxiReg'));
    expect(nameLabels('ΟΔΟΣ.Test')).toEqual(['xn--pxavbq', 'test']);
  });

  it('refuses a non-ASCII label holding @, space or :, and control characters, with a RangeError that says why', () => {
    expect(() => nameLabels('b@ü')).toThrow(/allowed in ASCII labels only/);
    expect(() => nameLabels('ü ü')).toThrow(/allowed in ASCII labels only/);
    expect(() => nameLabels('a\tb')).toThrow(/control characters/);
    expect(() => nameLabels('ü\u0000')).toThrow(/control characters/);
  });
});

