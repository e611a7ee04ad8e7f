import { describe, expect, it } from 'vitest';
import { NumberConvention } from '../../src/input/number-convention.js';
import { coerceValue } from '../../src/input/coerce.js';
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
    ['42', 42],
    [' -1.5 ', -1.5],
    ['+3', 3],
    ['2e3', 2000],
    ['.5', 0.5],
    ['7.', 7],
    ['0', 0],
    [12.25, 12.25],
  ])('NUMBER accepts %j', (raw, value) => good(raw, 'NUMBER', value));

  it.each([
    ['abc'],
    [''],
    ['1,5'],
    ['0x10'],
    ['NaN'],
    ['Infinity'],
    ['1 000'],
    [true],
    [Number.POSITIVE_INFINITY],
    [Number.NaN],
  ])('NUMBER refuses %j', (raw) => badValue(raw, 'NUMBER', /not a (finite )?number/));

  it.each([
    ['true', true],
    ['TRUE', true],
    [' yes ', true],
    ['Y', true],
    ['1', true],
    [1, true],
    [true, true],
    ['false', false],
    ['No', false],
    ['n', false],
    ['0', false],
    [0, false],
    [false, false],
  ])('BOOLEAN accepts %j', (raw, value) => good(raw, 'BOOLEAN', value));

  it.each([['maybe'], [''], ['2'], [2], ['truthy']])('BOOLEAN refuses %j', (raw) =>
    badValue(raw, 'BOOLEAN', /not a boolean/),
  );

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
    for (const raw of [
      '2025-03-01T12:00:00',
      '2025-03-01',
      '2025-02-30T12:00:00Z',
      '2025-03-01T25:00:00Z',
      'yesterday',
      1740830400000,
    ]) {
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
    expect(coerceValue(new ExactNumber('12345678901234567890'), 'STRING')).toEqual({
      ok: true,
      value: '12345678901234567890',
    });
  });

  it('a value typed on the command line is a number as JSON writes it; a refusal names every reading', () => {
    expect(coerceValue('3,5', 'NUMBER')).toEqual({
      ok: false,
      reason: '"3,5" is not a number as JSON writes one; with a decimal comma it is 3.5: write 3.5',
    });
    expect(coerceValue('1,234', 'NUMBER')).toEqual({
      ok: false,
      reason:
        '"1,234" reads as 1234 with a decimal point (the comma groups thousands) or as 1.234 with a decimal comma: write 1234 or 1.234',
    });
    expect(coerceValue('1.234', 'NUMBER')).toEqual({ ok: true, value: 1.234 });
  });

  it('a declared decimal comma reads dots as thousands and refuses a dot-decimal, naming its reading', () => {
    const comma = () => ({ numbers: new NumberConvention('comma') });
    expect(coerceValue('1.234,5', 'NUMBER', comma())).toEqual({ ok: true, value: 1234.5 });
    expect(coerceValue('-0,25', 'NUMBER', comma())).toEqual({ ok: true, value: -0.25 });
    expect(coerceValue('1.234.567', 'NUMBER', comma())).toEqual({ ok: true, value: 1234567 });
    expect(coerceValue('1,234.5', 'NUMBER', comma())).toEqual({
      ok: false,
      reason:
        '"1,234.5" is not a number written with a decimal comma (--decimal-comma); with a decimal point it is 1234.5',
    });
    expect(coerceValue('12', 'NUMBER', comma())).toEqual({ ok: true, value: 12 });
    expect(coerceValue('2e3', 'NUMBER', comma())).toEqual({ ok: true, value: 2000 });
    // A dot-decimal is refused rather than read as thousands (0.125 is not 125).
    for (const dot of ['0.125', '-0.001', '1.5', '1.2345']) {
      expect(coerceValue(dot, 'NUMBER', comma()), dot).toEqual({
        ok: false,
        reason: `"${dot}" is not a number written with a decimal comma (--decimal-comma); with a decimal point it is ${dot.replace(/^(-?)0\./, '$10.')}`,
      });
    }
    expect(coerceValue('1.500', 'NUMBER', comma())).toEqual({ ok: true, value: 1500 });
    expect(coerceValue('1,234', 'NUMBER', { numbers: new NumberConvention('point') })).toEqual({
      ok: true,
      value: 1234,
    });
  });

  it("a file's convention from its own cells: a scan finds the evidence, mixed or undecided files are refused", () => {
    const scanned = (cells: string[]) => {
      const numbers = new NumberConvention();
      numbers.startScan();
      cells.forEach((cell, i) => {
        numbers.at(i + 2);
        coerceValue(cell, 'NUMBER', { numbers });
      });
      return numbers;
    };
    const de = scanned(['1.234', '42', '1.234,5']);
    expect(de.endScan('de.csv')).toBe(
      'note: de.csv writes NUMBER cells with a decimal comma (line 4: "1.234,5"), so "1.234" (line 2) is read as 1234; --decimal-point or --decimal-comma names the convention instead',
    );
    expect(coerceValue('1.234', 'NUMBER', { numbers: de })).toEqual({ ok: true, value: 1234 });
    expect(scanned(['1,234', '0.5']).endScan('us.csv')).toBe(
      'note: us.csv writes NUMBER cells with a decimal point (line 3: "0.5"), so "1,234" (line 2) is read as 1234; --decimal-point or --decimal-comma names the convention instead',
    );
    expect(scanned(['1.5', '7']).endScan('plain.csv')).toBeUndefined();
    expect(() => scanned(['1.5', '3,5']).endScan('mixed.csv')).toThrow(
      'mixed.csv: NUMBER cells are written two ways: line 2 "1.5" with a decimal point, line 3 "3,5" with a decimal comma; a file has one convention',
    );
    expect(() => scanned(['1,234', '7', '2,500']).endScan('sheets.csv')).toThrow(
      'sheets.csv line 2: the NUMBER cell "1,234" reads as 1234 with a decimal point (the comma groups thousands) or as 1.234 with a decimal comma, and no other cell of the file tells which (2 cells like it)',
    );
    // Read once (stdin): the first evidence decides what follows; a cell of two readings before it is refused.
    const stream = new NumberConvention();
    stream.streaming();
    expect(coerceValue('1,234', 'NUMBER', { numbers: stream })).toMatchObject({ ok: false });
    stream.at(3);
    expect(coerceValue('0.5', 'NUMBER', { numbers: stream })).toEqual({ ok: true, value: 0.5 });
    expect(coerceValue('1,234', 'NUMBER', { numbers: stream })).toEqual({ ok: true, value: 1234 });
    expect(coerceValue('3,5', 'NUMBER', { numbers: stream })).toEqual({
      ok: false,
      reason:
        '"3,5" is not a number written with a decimal point (as line 3 ("0.5") shows); with a decimal comma it is 3.5',
    });
  });
});
