import { describe, expect, it } from 'vitest';
import { coerceValue } from '../../src/records/coerce.js';
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

describe('coerceValue: numbers out of range', () => {
  it('refuses a number that would overflow to Infinity (and be sent as null)', () => {
    expect(coerceValue('1e400', 'NUMBER')).toEqual(expect.objectContaining({ ok: false }));
    expect(coerceValue('1e3', 'NUMBER')).toEqual(expect.objectContaining({ ok: true, value: 1000 }));
  });
});
