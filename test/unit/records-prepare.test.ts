import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { CheckCollector } from '../../src/records/check.js';
import { definitionMap, prepareRecord, type PrepareOptions } from '../../src/records/prepare.js';

const def = (key: string, dataType: string, readOnly = false): FieldDefinition => ({
  key,
  label: key,
  objectType: 'CUSTOM_OBJECT',
  dataType,
  readOnly,
});
const DEFS = definitionMap([
  def('planName', 'STRING'),
  def('seats', 'NUMBER'),
  def('autoRenew', 'BOOLEAN'),
  def('startDate', 'DATE'),
  def('renewedAt', 'DATETIME'),
  def('syncedAt', 'DATETIME', true),
  def('future', 'GEOPOINT'),
]);
const csv: PrepareOptions = { definitions: DEFS, emptyCells: 'skip', csv: true };
const json: PrepareOptions = { definitions: DEFS, emptyCells: 'skip', csv: false };

describe('prepareRecord', () => {
  it('a field keyed __proto__ or constructor is a field like any other (CSV, JSON, with and without definitions)', () => {
    const defs = definitionMap([def('__proto__', 'NUMBER'), def('constructor', 'STRING')]);
    const row = JSON.parse('{"clientDedupKey":"k","fields":{"__proto__":"2","constructor":"c"}}');
    for (const opts of [
      { definitions: defs, emptyCells: 'skip', csv: false },
      { emptyCells: 'skip', csv: false },
    ] as PrepareOptions[]) {
      const res = prepareRecord(row, opts);
      expect(res.ok).toBe(true);
      const fields = (res as { record: { fields: Record<string, unknown> } }).record.fields;
      expect(Object.keys(fields)).toEqual(['__proto__', 'constructor']);
      expect(JSON.stringify(fields)).toBe(
        opts.definitions ? '{"__proto__":2,"constructor":"c"}' : '{"__proto__":"2","constructor":"c"}',
      );
    }
    const cells = prepareRecord(JSON.parse('{"clientDedupKey":"k","fields.__proto__":"3"}'), {
      definitions: defs,
      emptyCells: 'skip',
      csv: true,
    });
    expect(JSON.stringify((cells as { record: unknown }).record)).toBe(
      '{"clientDedupKey":"k","fields":{"__proto__":3}}',
    );
  });

  it("coerces every CSV column to its field's dataType", () => {
    const res = prepareRecord(
      {
        clientDedupKey: 'k1',
        planName: 'Pro',
        seats: ' 12 ',
        autoRenew: 'yes',
        startDate: '2025-01-31',
        renewedAt: '2025-02-01 10:00:00Z',
      },
      csv,
    );
    expect(res).toEqual({
      ok: true,
      record: {
        clientDedupKey: 'k1',
        fields: {
          planName: 'Pro',
          seats: 12,
          autoRenew: true,
          startDate: '2025-01-31',
          renewedAt: '2025-02-01T10:00:00Z',
        },
      },
    });
  });

  it('skips empty CSV cells by default, or sends null with emptyCells "null"', () => {
    expect(prepareRecord({ clientDedupKey: 'k', planName: '', seats: '' }, csv)).toEqual({
      ok: true,
      record: { clientDedupKey: 'k', fields: {} },
    });
    expect(prepareRecord({ clientDedupKey: 'k', planName: '', seats: '' }, { ...csv, emptyCells: 'null' })).toEqual({
      ok: true,
      record: { clientDedupKey: 'k', fields: { planName: null, seats: null } },
    });
  });

  it('takes JSON rows flat or with a fields object, keeping null and typed values', () => {
    expect(prepareRecord({ clientDedupKey: 'k', fields: { seats: 3, autoRenew: null } }, json)).toEqual({
      ok: true,
      record: { clientDedupKey: 'k', fields: { seats: 3, autoRenew: null } },
    });
    expect(prepareRecord({ clientDedupKey: 7, seats: '3', planName: '' }, json)).toEqual({
      ok: true,
      record: { clientDedupKey: '7', fields: { seats: 3, planName: '' } },
    });
    const both = prepareRecord({ clientDedupKey: 'k', fields: { seats: 3 }, planName: 'x' }, json);
    expect(both.ok).toBe(false);
  });

  it('lists every problem of an invalid row: key, unknown, read-only and type', () => {
    const res = prepareRecord(
      { clientDedupKey: ' ', nope: 'x', syncedAt: '2025-01-01T00:00:00Z', seats: 'many', startDate: '2025-02-30' },
      csv,
    );
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.problems.map((p) => [p.field, p.kind])).toEqual([
      ['clientDedupKey', 'key'],
      ['nope', 'unknown'],
      ['syncedAt', 'read-only'],
      ['seats', 'type'],
      ['startDate', 'type'],
    ]);
    expect(res.problems[3].reason).toBe('field "seats" (NUMBER): "many" is not a number');
  });

  it('sends a field of a data type it does not know as it is', () => {
    expect(prepareRecord({ clientDedupKey: 'k', future: '1,2' }, csv)).toEqual({
      ok: true,
      record: { clientDedupKey: 'k', fields: { future: '1,2' } },
    });
  });

  it('with no definitions (--no-coerce) sends strings as they are, unknown columns included', () => {
    const res = prepareRecord({ clientDedupKey: 'k', seats: '12', nope: 'x' }, { emptyCells: 'skip', csv: true });
    expect(res).toEqual({ ok: true, record: { clientDedupKey: 'k', fields: { seats: '12', nope: 'x' } } });
  });
});

describe('CheckCollector', () => {
  it('reports unknown columns, read-only fields and type mismatches with the first example', () => {
    const check = new CheckCollector(DEFS);
    const rows = [
      { clientDedupKey: 'a', seats: '1', nope: '', syncedAt: '', planName: 'x' },
      { clientDedupKey: 'b', seats: 'two', nope: 'y', syncedAt: '', planName: 'x' },
      { clientDedupKey: 'c', seats: 'three', nope: '', syncedAt: '', planName: 'x' },
    ];
    rows.forEach((row, i) => check.observe(i + 2, row, prepareRecord(row, csv)));
    const report = check.report();
    expect(report).toMatchObject({ ok: false, rows: 3, validRows: 1, invalidRows: 2 });
    expect(report.columns).toEqual([
      { column: 'clientDedupKey', status: 'key', dataType: null, mismatches: 0, example: null },
      {
        column: 'seats',
        status: 'mismatch',
        dataType: 'NUMBER',
        mismatches: 2,
        example: 'line 3: field "seats" (NUMBER): "two" is not a number',
      },
      { column: 'nope', status: 'unknown', dataType: null, mismatches: 0, example: null },
      { column: 'syncedAt', status: 'read-only', dataType: 'DATETIME', mismatches: 0, example: null },
      { column: 'planName', status: 'ok', dataType: 'STRING', mismatches: 0, example: null },
    ]);
    expect(report.problems).toEqual([
      'line 3: field "seats" (NUMBER): "two" is not a number; unknown field "nope"',
      'line 4: field "seats" (NUMBER): "three" is not a number',
    ]);
  });

  it('is ok when every column is known and writable and every value coerces', () => {
    const check = new CheckCollector(DEFS);
    const row = { clientDedupKey: 'a', fields: { seats: 2 } };
    check.observe(1, row, prepareRecord(row, json));
    expect(check.report()).toMatchObject({ ok: true, rows: 1, invalidRows: 0 });
    expect(check.report().columns.map((c) => c.column)).toEqual(['clientDedupKey', 'seats']);
  });
});
