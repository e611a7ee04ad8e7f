import { describe, expect, it } from 'vitest';
import { coerceValue } from '../../src/io/coerce.js';
import { ExactNumber, stringifyJson } from '../../src/lib/exact-number.js';
import { isIsoDate } from '../../src/dates.js';

const good = (raw: unknown, type: Parameters<typeof coerceValue>[1], value: unknown) => {
  expect(coerceValue(raw, type)).toEqual({ ok: true, value });
};
const badValue = (raw: unknown, type: Parameters<typeof coerceValue>[1], reason: RegExp) => {
  const res = coerceValue(raw, type);
  expect(res.ok).toBe(false);
  if (!res.ok) expect(res.reason).toMatch(reason);
};

describe('coerceValue', () => {
  it('keeps null (it clears the field) for every type', () => {
    for (const t of ['STRING', 'NUMBER', 'BOOLEAN', 'DATE', 'DATETIME'] as const) good(null, t, null);
  });

  it('STRING: strings as they are, numbers and booleans as text, objects refused', () => {
    good('  Pro plan ', 'STRING', '  Pro plan ');
    good('', 'STRING', '');
    good(42, 'STRING', '42');
    good(false, 'STRING', 'false');
    badValue({ a: 1 }, 'STRING', /not a string/);
    badValue([1], 'STRING', /not a string/);
  });

  it.each([
    ['42', 42], [' -1.5 ', -1.5], ['+3', 3], ['2e3', 2000], ['.5', 0.5], ['7.', 7], ['0', 0], [12.25, 12.25],
  ])('NUMBER accepts %j', (raw, value) => good(raw, 'NUMBER', value));

  it.each([
    ['abc'], [''], ['1,5'], ['0x10'], ['NaN'], ['Infinity'], ['1 000'], [true], [Number.POSITIVE_INFINITY], [Number.NaN],
  ])('NUMBER refuses %j', (raw) => badValue(raw, 'NUMBER', /not a (finite )?number/));

  it.each([
    ['true', true], ['TRUE', true], [' yes ', true], ['Y', true], ['1', true], [1, true], [true, true],
    ['false', false], ['No', false], ['n', false], ['0', false], [0, false], [false, false],
  ])('BOOLEAN accepts %j', (raw, value) => good(raw, 'BOOLEAN', value));

  it.each([['maybe'], [''], ['2'], [2], ['truthy']])('BOOLEAN refuses %j', (raw) => badValue(raw, 'BOOLEAN', /not a boolean/));

  it('DATE: real calendar dates written YYYY-MM-DD only', () => {
    good('2025-01-31', 'DATE', '2025-01-31');
    good(' 2024-02-29 ', 'DATE', '2024-02-29');
    for (const raw of ['2025-02-29', '2025-13-01', '2025-1-5', '31/01/2025', '2025-01-31T00:00:00Z', '', 20250131]) {
      badValue(raw, 'DATE', /not a date YYYY-MM-DD/);
    }
  });

  it('DATETIME: ISO 8601 with a zone; a space for the T is normalised', () => {
    good('2025-03-01T12:00:00Z', 'DATETIME', '2025-03-01T12:00:00Z');
    good('2025-03-01T12:00:00.123+02:00', 'DATETIME', '2025-03-01T12:00:00.123+02:00');
    good('2025-03-01 12:00z', 'DATETIME', '2025-03-01T12:00Z');
    good('2025-03-01T12:00:00-0500', 'DATETIME', '2025-03-01T12:00:00-0500');
    for (const raw of ['2025-03-01T12:00:00', '2025-03-01', '2025-02-30T12:00:00Z', '2025-03-01T25:00:00Z', 'yesterday', 1740830400000]) {
      badValue(raw, 'DATETIME', /not an ISO 8601 date-time with a zone/);
    }
  });

  it('isIsoDate checks the calendar, leap years included', () => {
    expect(isIsoDate('2000-02-29')).toBe(true);
    expect(isIsoDate('1900-02-29')).toBe(false);
    expect(isIsoDate('2025-04-31')).toBe(false);
  });
});

describe('coerceValue: numbers a double cannot hold', () => {
  it('keeps every digit as written (never rounded, never Infinity sent as null)', () => {
    const sent = (text: string) => {
      const c = coerceValue(text, 'NUMBER');
      return c.ok ? stringifyJson({ n: c.value }) : c.reason;
    };
    expect(sent('9007199254740993')).toBe('{"n":9007199254740993}');
    expect(sent('1e400')).toBe('{"n":1e400}');
    expect(sent('-0.1000000000000000055511151231257827')).toBe('{"n":-0.1000000000000000055511151231257827}');
    // Only respelled where JSON needs it: a sign, leading zeros, a bare point.
    expect(sent(' +007 ')).toBe('{"n":7}');
    expect(sent('.5')).toBe('{"n":0.5}');
    expect(sent('+12345678901234567890.')).toBe('{"n":12345678901234567890}');
    expect(coerceValue('1e3', 'NUMBER')).toEqual({ ok: true, value: 1000 });
    expect(coerceValue(new ExactNumber('12345678901234567890'), 'STRING')).toEqual({ ok: true, value: '12345678901234567890' });
  });

  it('reads a decimal comma only when asked, and says so when a cell looks like one', () => {
    expect(coerceValue('3,5', 'NUMBER')).toEqual({ ok: false, reason: '"3,5" is not a number (a decimal comma? --decimal-comma reads 3,5 as 3.5)' });
    expect(coerceValue('1.234,5', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: 1234.5 });
    expect(coerceValue('-0,25', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: -0.25 });
    expect(coerceValue('1.234.567', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: 1234567 });
    expect(coerceValue('1,234.5', 'NUMBER', { decimalComma: true })).toEqual(expect.objectContaining({ ok: false }));
    expect(coerceValue('12', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: 12 });
    expect(coerceValue('2e3', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: 2000 });
    // Declared decimal comma: a dot-decimal is refused rather than read as thousands (0.125 is not 125).
    for (const dot of ['0.125', '-0.001', '1.5', '1.2345']) {
      expect(coerceValue(dot, 'NUMBER', { decimalComma: true }), dot).toEqual({ ok: false, reason: `"${dot}" is not a number written with a decimal comma (--decimal-comma reads 3,5 and 1.234,5)` });
    }
    expect(coerceValue('1.500', 'NUMBER', { decimalComma: true })).toEqual({ ok: true, value: 1500 });
  });
});
