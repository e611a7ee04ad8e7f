import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { ColumnResolver, NO_COLUMN_FLAGS, type ColumnFlags } from '../../src/batch/columns/column-resolver.js';
import type { FieldsByParent } from '../../src/batch/columns/field-match.js';
import { UPSERT_COLUMNS } from '../../src/contacts/file-row.js';

const def = (key: string, label: string, objectType = 'CONTACT', readOnly = false): FieldDefinition => ({
  key,
  label,
  dataType: 'STRING',
  objectType,
  readOnly,
});
const defs = (contact: FieldDefinition[], company: FieldDefinition[]): FieldsByParent =>
  new Map([
    ['fields', new Map(contact.map((d) => [d.key, d]))],
    ['companyFields', new Map(company.map((d) => [d.key, d]))],
  ]);

function resolver(definitions: FieldsByParent, flags: Partial<ColumnFlags> = {}): ColumnResolver {
  const r = new ColumnResolver(UPSERT_COLUMNS, { ...NO_COLUMN_FLAGS, ...flags });
  r.useDefinitions(definitions);
  return r;
}

const SHARED = defs(
  [def('contactEmployees', 'Employees'), def('city', 'City')],
  [def('employees', 'Employees', 'COMPANY'), def('industry', 'Industry', 'COMPANY')],
);

describe('a bare column that fields of two parents answer', () => {
  it('is ambiguous (by label, by key, in any case), naming both and the --map of each; one parent alone is that field', () => {
    for (const name of ['Employees', 'employees', 'EMPLOYEES']) {
      const t = resolver(SHARED).resolve(name).target;
      expect(t).toMatchObject({ kind: 'unknown', ambiguous: true });
      expect(t.kind === 'unknown' && t.why).toContain(
        'names both fields.contactEmployees (CONTACT field labelled "Employees") and companyFields.employees (COMPANY field labelled "Employees")',
      );
      expect(t.kind === 'unknown' && t.why).toContain(
        `say which with --map ${name}=fields.contactEmployees or --map ${name}=companyFields.employees`,
      );
    }
    // A key of one parent, the label of the other: ambiguous too (the CONTACT field's key is "city", a COMPANY field is labelled "City").
    const keyAndLabel = defs([def('city', 'Town')], [def('companyCity', 'City', 'COMPANY')]);
    expect(resolver(keyAndLabel).resolve('city').target).toMatchObject({ kind: 'unknown', ambiguous: true });
    expect(resolver(SHARED).resolve('Industry').target).toMatchObject({
      kind: 'field',
      parent: 'companyFields',
      key: 'industry',
    });
    expect(resolver(SHARED).resolve('City').target).toMatchObject({ kind: 'field', parent: 'fields', key: 'city' });
  });

  it('a prefix or a --map by key says which; --ignore-unknown-columns never drops it', () => {
    expect(resolver(SHARED).resolve('fields.Employees').target).toMatchObject({
      kind: 'field',
      parent: 'fields',
      key: 'contactEmployees',
    });
    expect(resolver(SHARED).resolve('companyFields.Employees').target).toMatchObject({
      kind: 'field',
      parent: 'companyFields',
      key: 'employees',
    });
    const mapped = resolver(SHARED, {
      map: [{ column: 'Employees', target: 'fields.contactEmployees', source: '--map' }],
    }).resolve('Employees');
    expect(mapped).toMatchObject({
      target: { kind: 'field', key: 'contactEmployees' },
      via: '--map',
      mapTarget: 'fields.contactEmployees',
    });
    expect(resolver(SHARED, { ignoreUnknown: true }).resolve('Employees').target).toMatchObject({
      kind: 'unknown',
      ambiguous: true,
    });
    expect(resolver(SHARED, { ignoreUnknown: true }).resolve('nonsense').target).toMatchObject({ kind: 'skip' });
    // A bare --map target is a column name like any other: ambiguous, refused with why.
    expect(() => resolver(SHARED, { map: [{ column: 'x', target: 'Employees', source: '--map' }] })).toThrow(
      /names both fields.contactEmployees/,
    );
  });

  it('a --map by key stays on its field when labels move', () => {
    const before = defs([def('contactEmployees', 'Employees')], [def('staffCount', 'Staff', 'COMPANY')]);
    const after = defs([def('contactEmployees', 'Headcount')], [def('staffCount', 'Employees', 'COMPANY')]);
    const map = { map: [{ column: 'Employees', target: 'fields.contactEmployees', source: '--map' }] };
    for (const d of [before, after])
      expect(resolver(d, map).resolve('Employees').target).toMatchObject({
        kind: 'field',
        parent: 'fields',
        key: 'contactEmployees',
      });
    // Without it, the bare column follows the label: why a sync remembers what it resolved to.
    expect(resolver(before).resolve('Employees').target).toMatchObject({ parent: 'fields', key: 'contactEmployees' });
    expect(resolver(after).resolve('Employees').target).toMatchObject({ parent: 'companyFields', key: 'staffCount' });
  });

  it('a key spelt otherwise that fields of both parents name too lists every reading; a read-only reading gets no --map but -', () => {
    const both = defs([def('hubspotId', 'Contact ID')], [def('companyHubspotId', 'Contact ID', 'COMPANY')]);
    const t = resolver(both).resolve('Contact ID').target;
    expect(t.kind === 'unknown' && t.why).toBe(
      "names cnvContactId, fields.hubspotId (CONTACT field labelled \"Contact ID\") and companyFields.companyHubspotId (COMPANY field labelled \"Contact ID\"): say which with --map 'Contact ID=cnvContactId' or --map 'Contact ID=fields.hubspotId' or --map 'Contact ID=companyFields.companyHubspotId'",
    );
    const readOnly = defs([def('owner', 'Owner')], [def('accountOwner', 'Owner', 'COMPANY', true)]);
    const r = resolver(readOnly).resolve('Owner').target;
    expect(r.kind === 'unknown' && r.why).toBe(
      'names both fields.owner (CONTACT field labelled "Owner") and companyFields.accountOwner (read-only COMPANY field labelled "Owner"): say which with --map Owner=fields.owner (--map Owner=- leaves it out)',
    );
  });
});

describe('labels and keys that are names of Object.prototype', () => {
  it('__proto__, constructor and toString resolve as fields by label and key, never as the prototype', () => {
    const d = defs(
      [def('protoNote', '__proto__'), def('constructor', 'Builder'), def('toStringField', 'toString')],
      [def('hasOwnProperty', 'Owner check', 'COMPANY')],
    );
    const r = resolver(d);
    expect(r.resolve('__proto__').target).toMatchObject({
      kind: 'field',
      parent: 'fields',
      key: 'protoNote',
      by: 'label',
    });
    expect(r.resolve('constructor').target).toMatchObject({
      kind: 'field',
      parent: 'fields',
      key: 'constructor',
      by: 'key',
    });
    expect(r.resolve('toString').target).toMatchObject({
      kind: 'field',
      parent: 'fields',
      key: 'toStringField',
      by: 'label',
    });
    expect(r.resolve('hasOwnProperty').target).toMatchObject({
      kind: 'field',
      parent: 'companyFields',
      key: 'hasOwnProperty',
    });
    expect(r.resolve('valueOf').target).toMatchObject({ kind: 'unknown' });
    expect(r.resolve('fields.__proto__').target).toMatchObject({ kind: 'field', key: 'protoNote' });
  });
});

describe("a header of cnv's own contact export", () => {
  it('a column that no CONTACT field is labelled now (relabelled since the export) is unknown, never the COMPANY field of that label', () => {
    const relabelled = defs([def('contactEmployees', 'Headcount')], [def('staffCount', 'Employees', 'COMPANY')]);
    const r = resolver(relabelled);
    r.meet([...UPSERT_COLUMNS.exportColumns!, 'Employees'], true);
    expect(r.isExportHeader).toBe(true);
    expect(r.resolve('Employees').target).toMatchObject({ kind: 'unknown' });
    expect(r.resolve('Headcount').target).toMatchObject({ kind: 'field', parent: 'fields', key: 'contactEmployees' });
    expect(r.resolve('companyFields.Employees').target).toMatchObject({
      kind: 'field',
      parent: 'companyFields',
      key: 'staffCount',
    });
    // A --map target is not a column of the file: it may name a COMPANY field by label.
    const mapped = resolver(relabelled, { map: [{ column: 'Employees', target: 'Employees', source: '--map' }] });
    mapped.meet([...UPSERT_COLUMNS.exportColumns!, 'Employees'], true);
    expect(mapped.resolve('Employees').target).toMatchObject({
      kind: 'field',
      parent: 'companyFields',
      key: 'staffCount',
    });
    // Outside an export's header the same column is the COMPANY field (the sync's memory guards that case).
    expect(resolver(relabelled).resolve('Employees').target).toMatchObject({ kind: 'field', parent: 'companyFields' });
  });
});
