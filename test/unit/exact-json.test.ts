import { describe, expect, it } from 'vitest';
import { exactNumber, looseJson, mayHoldInexactNumber, parseJson } from '../../src/json/exact-json.js';
import { cloneJson, ExactNumber, sameScalar, stringifyJson } from '../../src/lib/exact-number.js';

describe('parseJson and stringifyJson: numbers keep every digit', () => {
  it.each([
    '{"score":9007199254740993}',
    '{"a":[123456789012345678901234567890,-0.1000000000000000055511151231257827,1e400,1e-400]}',
    '{"nested":{"deep":[{"n":18446744073709551616}]},"small":1.5,"s":"9007199254740993"}',
  ])('%s goes out as it came in', (text) => {
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('keeps plain numbers plain (JSON.parse where it is exact)', () => {
    expect(parseJson('{"a":42,"b":-1.25,"c":"12345678901234567890"}')).toEqual({
      a: 42,
      b: -1.25,
      c: '12345678901234567890',
    });
    const big = parseJson('{"b":9007199254740993,"small":7}') as Record<string, unknown>;
    expect(big.b).toBeInstanceOf(ExactNumber);
    expect(big.small).toBe(7);
  });

  it.each([
    ' 12345678901234567',
    '[ 1e400 ]',
    '{"a": [1,\n  -9007199254740993]}',
    '{"id":"c1e12345-6789-4000-8000-000000000001","e":"x1e999","n":1E-400}',
    '[0.12345678901234567]',
  ])('%s: a number a double cannot hold is kept wherever a value starts (with spaces, line breaks, a sign)', (text) => {
    expect(stringifyJson(parseJson(text))).toBe(text.trim().replace(/\s+/g, ''));
  });

  it('only numbers send text to the lossless parser: UUIDs and digit runs inside strings do not', () => {
    // A batch answer: 1,000 ids holding `e` and three digits, and long digit runs in strings.
    const items = Array.from({ length: 1000 }, (_, i) => ({
      contactId: `c${i}e123456-0000-4000-8000-${String(i).padStart(12, '0')}`,
      phone: '12345678901234567890',
      status: 'added',
    }));
    const text = JSON.stringify({ items });
    expect(mayHoldInexactNumber(text)).toBe(false);
    expect(parseJson(text)).toEqual(JSON.parse(text));
    for (const inexact of ['9007199254740993', '{"n":1e400}', '[1,\n 0.12345678901234567]', '{"a": -1.5E-308}'])
      expect(mayHoldInexactNumber(inexact), inexact).toBe(true);
  });

  it('behaves as JSON.parse otherwise: the last of two keys wins, __proto__ stays an own member, errors are its errors', () => {
    expect(parseJson('{"a":1,"a":9007199254740993}')).toEqual({ a: new ExactNumber('9007199254740993') });
    const proto = parseJson('{"__proto__":{"polluted":true},"n":12345678901234567890}') as Record<string, unknown>;
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseJson('{"n":12345678901234567890,}')).toThrow(SyntaxError);
    expect(() => parseJson('{"n":12345678901234567890,}')).toThrow(/JSON/);
  });

  it('a string that looks like the marker is still a string', () => {
    const forged = '\u0000cnv-number-0000000000000000:1';
    expect(stringifyJson({ s: forged, n: new ExactNumber('1') })).toBe(`{"s":${JSON.stringify(forged)},"n":1}`);
  });

  it('looseJson: JSON when it parses (numbers exact), else the text', () => {
    expect(stringifyJson(looseJson('9007199254740993'))).toBe('9007199254740993');
    expect(looseJson('pro plan')).toBe('pro plan');
    expect(looseJson('{"a":[1]}')).toEqual({ a: [1] });
  });

  it('exactNumber respells only what JSON needs, never the digits', () => {
    const text = (s: string) => stringifyJson(exactNumber(s));
    expect([
      text('+3'),
      text('.5'),
      text('007'),
      text('1.'),
      text('-0.50'),
      text('2E3'),
      text('9007199254740993'),
    ]).toEqual(['3', '0.5', '7', '1', '-0.5', '2000', '9007199254740993']);
    for (const bad of ['', '+', '.', '1,5', '0x10', 'NaN', '1 000', 'e5'])
      expect(exactNumber(bad), bad).toBeUndefined();
  });

  it('cloneJson copies plain data and keeps ExactNumbers; sameScalar compares them by their digits', () => {
    const n = new ExactNumber('9007199254740993');
    const copy = cloneJson({ a: [n, { b: 1 }] });
    expect(copy.a[0]).toBe(n);
    expect(stringifyJson(copy)).toBe('{"a":[9007199254740993,{"b":1}]}');
    expect(sameScalar(n, new ExactNumber('9007199254740993'))).toBe(true);
    expect(sameScalar(n, '9007199254740993')).toBe(false);
    expect(sameScalar(1, 1)).toBe(true);
  });
});
