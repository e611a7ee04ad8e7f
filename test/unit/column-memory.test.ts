import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedColumn } from '../../src/batch/columns/column-resolver.js';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import {
  columnChanges,
  columnMemoryPath,
  columnsChangedError,
  inputName,
  rememberColumns,
  resolutionOf,
  type ColumnChange,
} from '../../src/sync/column-memory.js';

const def = (key: string, label: string, objectType = 'CONTACT'): FieldDefinition => ({
  key,
  label,
  dataType: 'NUMBER',
  objectType,
});
const field = (column: string, parent: string, key: string, extra: Partial<ResolvedColumn> = {}): ResolvedColumn => ({
  column,
  target: { kind: 'field', parent, key, def: def(key, column), by: 'label' },
  ...extra,
});
const email: ResolvedColumn = { column: 'email', target: { kind: 'key', key: 'email' } };
const KEY = 'sk_live_demo@127.0.0.1/v2/contacts-sync';

function memory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-columns-'));
  mkdirSync(join(dir, 'sync'));
  return columnMemoryPath(dir, KEY);
}

describe('resolutionOf', () => {
  it('names the target and what decided it: the name, a --map target, --ignore-column, --pass-column', () => {
    expect(resolutionOf(field('Employees', 'fields', 'contactEmployees'))).toEqual({
      column: 'Employees',
      target: 'fields.contactEmployees',
      shown: 'fields.contactEmployees',
      instruction: 'name',
    });
    expect(
      resolutionOf(
        field('Employees', 'fields', 'contactEmployees', {
          via: 'map file line 3',
          mapTarget: 'fields.contactEmployees',
        }),
      )?.instruction,
    ).toBe('map:fields.contactEmployees');
    expect(resolutionOf({ column: 'x', target: { kind: 'skip', why: 'ignored (--ignore-column)' } })).toMatchObject({
      target: '-',
      shown: 'not sent (ignored (--ignore-column))',
      instruction: 'ignore',
    });
    expect(resolutionOf({ column: 'Sync', target: { kind: 'pass', key: 'Sync' }, via: '--pass-column' })).toMatchObject(
      { target: 'body.Sync', instruction: 'pass' },
    );
    expect(resolutionOf({ column: 'nope', target: { kind: 'unknown' } })).toBeUndefined();
  });
});

describe('columnChanges and rememberColumns', () => {
  it('a first run compares nothing; a column moved by its own name is a change; remembered, it is not', () => {
    const file = memory();
    const input = inputName('nightly.csv');
    expect(input).toBe(resolve('nightly.csv'));
    const before = [email, field('Employees', 'fields', 'contactEmployees')];
    expect(columnChanges(file, KEY, input, before)).toEqual([]);
    rememberColumns(file, KEY, input, before, '2026-01-01T00:00:00.000Z');
    const after = [email, field('Employees', 'companyFields', 'employees')];
    const changes: ColumnChange[] = columnChanges(file, KEY, input, after);
    expect(changes).toEqual([
      { column: 'Employees', before: 'fields.contactEmployees', after: 'companyFields.employees' },
    ]);
    // Another file of the same account keeps its own memory; stdin is "-".
    expect(columnChanges(file, KEY, inputName('other.csv'), after)).toEqual([]);
    expect(inputName('-')).toBe('-');
    rememberColumns(file, KEY, input, after, '2026-01-02T00:00:00.000Z');
    expect(columnChanges(file, KEY, input, after)).toEqual([]);
  });

  it('a column whose --map changed, and a column new to the file, are not changes; a column absent from a run stays remembered', () => {
    const file = memory();
    const input = inputName('f.csv');
    rememberColumns(
      file,
      KEY,
      input,
      [email, field('Seats', 'fields', 'seats'), field('Plan', 'fields', 'plan')],
      'then',
    );
    const mapped = field('Seats', 'companyFields', 'seats2', { via: '--map', mapTarget: 'companyFields.seats2' });
    expect(columnChanges(file, KEY, input, [email, mapped, field('New', 'fields', 'newOne')])).toEqual([]);
    rememberColumns(file, KEY, input, [email, mapped], 'now');
    // "Plan" was not in that run: still remembered, so its move is seen.
    expect(columnChanges(file, KEY, input, [field('Plan', 'companyFields', 'plan2')])).toHaveLength(1);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.files).toHaveLength(1);
    expect(saved.files[0].columns.map((c: { column: string }) => c.column)).toEqual(['email', 'Seats', 'Plan']);
  });

  it('a column named __proto__ is remembered like any other; a memory of another key, or one that does not parse, is none', () => {
    const file = memory();
    const input = inputName('p.csv');
    rememberColumns(file, KEY, input, [field('__proto__', 'fields', 'protoNote')], 'then');
    expect(columnChanges(file, KEY, input, [field('__proto__', 'fields', 'other')])).toEqual([
      { column: '__proto__', before: 'fields.protoNote', after: 'fields.other' },
    ]);
    expect(
      columnChanges(file, 'another-account/contacts-sync', input, [field('__proto__', 'fields', 'other')]),
    ).toEqual([]);
    writeFileSync(file, '{"version":1,');
    expect(columnChanges(file, KEY, input, [field('__proto__', 'fields', 'other')])).toEqual([]);
  });
});

describe('columnsChangedError', () => {
  it('is exit 2, columns_changed, naming each column old -> new and the flag that accepts them', () => {
    const err = columnsChangedError('nightly.csv', [
      { column: 'Employees', before: 'fields.contactEmployees', after: 'companyFields.employees' },
      { column: 'Seats', before: 'fields.seats', after: 'not sent (ignored (--ignore-unknown-columns))' },
    ]);
    expect([err.exitCode, err.code]).toEqual([2, 'columns_changed']);
    expect(err.message).toBe(
      'nightly.csv: 2 columns name another target than at the last sync of this file (a field of the account was renamed, created or deleted): "Employees": fields.contactEmployees -> companyFields.employees; "Seats": fields.seats -> not sent (ignored (--ignore-unknown-columns))',
    );
    expect(err.hint).toContain('--accept-columns');
  });
});
