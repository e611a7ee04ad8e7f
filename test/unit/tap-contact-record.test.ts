import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { stringifyJson } from '../../src/lib/exact-number.js';
import { ContactFields } from '../../src/tap/contact-record.js';

const def = (key: string, label: string, dataType = 'STRING'): FieldDefinition => ({
  key,
  label,
  objectType: 'CONTACT',
  dataType,
});

describe('ContactFields: a contact row as a tap RECORD', () => {
  it('fields become properties by key; members no definition names alone go, by label, to unresolvedFields (never dropped)', () => {
    const fields = new ContactFields([def('city', 'City'), def('regionA', 'Region'), def('regionB', 'Region')]);
    const row = {
      id: 'c1',
      email: 'a@example.com',
      updatedAt: '2025-01-01T00:00:00.000Z',
      fields: { City: 'Oslo', Region: 'North', Unknown: 1 },
    };
    expect(fields.record(row, JSON.stringify(row))).toEqual({
      id: 'c1',
      email: 'a@example.com',
      updatedAt: '2025-01-01T00:00:00.000Z',
      city: 'Oslo',
      unresolvedFields: { Region: 'North', Unknown: 1 },
    });
    // "Label (key)", as a server may tell shared labels apart, names one field.
    const told = { id: 'c2', fields: { 'Region (regionB)': 'South' } };
    expect(fields.record(told, JSON.stringify(told))).toEqual({ id: 'c2', regionB: 'South' });
  });

  it('a field whose key is a contact member (email, id, unresolvedFields) is field_<key>, in the schema and the record', () => {
    const fields = new ContactFields([def('email', 'Work email'), def('unresolvedFields', 'Odd')]);
    const row = { id: 'c1', email: 'a@example.com', fields: { 'Work email': 'w@example.com', Odd: 'x' } };
    expect(fields.record(row, JSON.stringify(row))).toEqual({
      id: 'c1',
      email: 'a@example.com',
      field_email: 'w@example.com',
      field_unresolvedFields: 'x',
    });
    const props = fields.schema.properties as Record<string, unknown>;
    expect(props.field_email).toEqual({ type: ['string', 'null'], title: 'Work email' });
    expect(props.email).toEqual({ type: ['string', 'null'] });
  });

  it('a member named __proto__ or constructor (a label, a key, a row member) is kept like any other', () => {
    const fields = new ContactFields([def('__proto__', 'Proto'), def('constructor', 'Maker')]);
    const text = '{"id":"c1","__proto__":{"x":1},"fields":{"Proto":"p","__proto__":"q","Maker":"m"}}';
    // The row's own "__proto__" member came first: the field of that key goes, by label, to unresolvedFields.
    expect(stringifyJson(fields.record(JSON.parse(text), text))).toBe(
      '{"id":"c1","__proto__":{"x":1},"constructor":"m","unresolvedFields":{"Proto":"p","__proto__":"q"}}',
    );
    expect(Object.keys(fields.schema.properties as object)).toEqual(
      expect.arrayContaining(['__proto__', 'constructor']),
    );
  });

  it('numbers keep every digit (the row text is read losslessly)', () => {
    const fields = new ContactFields([def('score', 'Score', 'NUMBER')]);
    const text =
      '{"id":"c1","fields":{"Score":12345678901234567890123456789012345678901234567890,"Other":9007199254740993}}';
    expect(stringifyJson(fields.record(JSON.parse(text), text))).toBe(
      '{"id":"c1","score":12345678901234567890123456789012345678901234567890,"unresolvedFields":{"Other":9007199254740993}}',
    );
  });

  it('an unknown label asks for the definitions once; after they were read again (settle) it does not', () => {
    const fields = new ContactFields([def('city', 'City')]);
    const row = { id: 'c1', fields: { City: 'Oslo', Tier: 'gold' } };
    expect(fields.unknownLabel(row)).toBe('Tier');
    expect(fields.use([def('city', 'City')])).toBe(false); // the same definitions: no new SCHEMA
    fields.settle(['Tier']);
    expect(fields.unknownLabel(row)).toBeUndefined();
    expect(fields.use([def('city', 'City'), def('tier', 'Tier')])).toBe(true);
    expect(fields.record(row, JSON.stringify(row))).toEqual({ id: 'c1', city: 'Oslo', tier: 'gold' });
  });
});
