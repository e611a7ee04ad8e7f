import { describe, expect, it } from 'vitest';
import { csvLayout, EXTRA_COLUMN, FIXED_COLUMNS, rowCells } from '../../src/exporter/csv-layout.js';
import { fieldKeys, rowWithFieldKeys } from '../../src/exporter/fields-by-key.js';
import { setOwn } from '../../src/lib/own-key.js';

// Labels and keys that are names of Object.prototype (`__proto__`, `constructor`, `toString`)
// are data like any other: never the prototype, never a member inherited from it.

const FIELDS = [
  { key: 'builder', label: 'constructor' },
  { key: 'shown', label: 'toString' },
  { key: 'proto', label: '__proto__' },
];
const row = (fields: string) =>
  JSON.parse(`{"id":"c1","email":"a@example.com","fields":${fields}}`) as Record<string, unknown>;

describe('setOwn', () => {
  it('makes an own, enumerable member of any key, __proto__ included', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', 'x');
    setOwn(target, 'constructor', 'y');
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(target)).toBe('{"__proto__":"x","constructor":"y"}');
  });
});

describe('the CSV layout of contacts', () => {
  it('gives fields labelled constructor, toString and __proto__ their columns, and fills them (nothing in _extra)', () => {
    const layout = csvLayout('contacts', FIELDS);
    expect(layout.columns).toEqual([...FIXED_COLUMNS.contacts, 'constructor', 'toString', '__proto__', EXTRA_COLUMN]);
    const cells = rowCells('contacts', layout)(row('{"constructor":"c","toString":"t","__proto__":"p"}'));
    const at = (column: string) => cells[layout.columns.indexOf(column)];
    expect([at('constructor'), at('toString'), at('__proto__'), at(EXTRA_COLUMN)]).toEqual(['c', 't', 'p', '']);
  });

  it('keeps a top-level member __proto__ a server sent in _extra, and a field without a column there too', () => {
    const layout = csvLayout('contacts', [{ key: 'city', label: 'City' }]);
    const sent = JSON.parse('{"id":"c1","__proto__":{"a":1},"fields":{"City":"Oslo","constructor":"late"}}') as Record<
      string,
      unknown
    >;
    const cells = rowCells('contacts', layout)(sent);
    expect(JSON.parse(cells[layout.columns.indexOf(EXTRA_COLUMN)])).toEqual(
      JSON.parse('{"__proto__":{"a":1},"fields.constructor":"late"}'),
    );
    expect(cells[layout.columns.indexOf('City')]).toBe('Oslo');
  });

  it('--columns picks a field labelled constructor by its label', () => {
    const layout = csvLayout('contacts', FIELDS, ['id', 'constructor']);
    expect(layout.columns).toEqual(['id', 'constructor', EXTRA_COLUMN]);
    expect(rowCells('contacts', layout)(row('{"constructor":"c"}'))).toEqual(['c1', 'c', '']);
  });
});

describe('--fields-by key', () => {
  it('renames members to keys named constructor, toString and __proto__, never inherited ones', () => {
    const keys = fieldKeys([
      { key: 'constructor', label: 'Builder' },
      { key: 'toString', label: 'Shown' },
      { key: '__proto__', label: 'Proto' },
    ]);
    const out = rowWithFieldKeys(row('{"Builder":"b","Shown":"s","Proto":"p"}'), keys);
    expect(JSON.stringify(out.fields)).toBe('{"constructor":"b","toString":"s","__proto__":"p"}');
    expect(out).not.toHaveProperty('unresolvedFields');
    const labels = rowWithFieldKeys(row('{"__proto__":"x","constructor":"y"}'), fieldKeys([]));
    expect(JSON.stringify(labels.unresolvedFields)).toBe('{"__proto__":"x","constructor":"y"}');
  });
});
