import { describe, expect, it, vi } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { fieldKeys } from '../../src/exporter/fields-by-key.js';
import { parseJson } from '../../src/json/exact-json.js';
import { stringifyJson } from '../../src/lib/exact-number.js';
import { ContactFields } from '../../src/tap/contact-record.js';
import { RecordText } from '../../src/tap/record-text.js';
import { fieldProperty } from '../../src/tap/schemas.js';

const def = (key: string, label: string, dataType = 'STRING'): FieldDefinition => ({
  key,
  label,
  objectType: 'CONTACT',
  dataType,
});

const DEFS = [
  def('city', 'City'),
  def('score', 'Score', 'NUMBER'),
  def('regionA', 'Region'),
  def('regionB', 'Region'),
  def('email', 'Work email'),
  def('field_email', 'Other email'),
  def('__proto__', 'Proto'),
];

/** RecordText over DEFS: each label to its property, as ContactFields maps them. */
function recordText(excluded: ReadonlySet<string> = new Set()): RecordText {
  const text = new RecordText(excluded);
  text.resolve(new Map([...fieldKeys(DEFS).keyOf].map(([label, key]) => [label, fieldProperty(key)])));
  return text;
}

/** What the general path writes: the row read losslessly, built again, stringified. */
const general = (fields: ContactFields, text: string) =>
  stringifyJson(fields.record(parseJson(text) as Record<string, unknown>, text));

// Rows as servers write them: compact, spaced (Python's json.dumps), indented, with escapes and big numbers.
const PLAIN_ROWS = [
  '{"id":"c1","email":"a@example.com","updatedAt":"2025-01-01T00:00:00.000Z","fields":{"City":"Oslo","Score":7}}',
  '{"id": "c2", "email": null, "fields": {"City": "Bergen", "Score": 9007199254740993}}',
  '{\n  "id": "c3",\n  "fields": {\n    "Score": 12345678901234567890123456789012345678901234567890,\n    "City": "x"\n  }\n}',
  '{"id":"c4","fields":{"City":"say \\"hi\\" \\\\","Score":-1.50e+3,"Unknown":true,"Region":null}}',
  '{"id":"c5","fields":{"Region (regionB)":"South","Work email":"w@example.com","Other email":"o@example.com"}}',
  '{"id":"c6","fields":{}}',
  '{"id":"c7","fields":{"Proto":"p","Shields":"fields\\"","City":"fields"}}',
  '{"id":"c8","fields":{"Score":1e400,"City":""}}',
];

// Rows whose rules are not plain: RecordText declines them, ContactFields.record writes them.
const ODD_ROWS = [
  '{"id":"c1","fields":{"City":"a","City":"b"}}',
  '{"id":"c2","fields":{"City":"a"},"updatedAt":"2025-01-01T00:00:00.000Z"}',
  '{"id":"c3","fields":{"City":{"nested":1}}}',
  '{"id":"c4","fields":{"Cit\\u0079":"a"}}',
  '{"id":"c5 \\u00e9","fields":{"City":"a"}}',
  '{"id":"c6","fields":{"City":"a"},"fields":{"City":"b"}}',
  '{"id":"c7","city":"top","fields":{"City":"a"}}',
  '{"id":"c8","fields":null}',
  '{"fields":{"City":"a"}}',
  '{"id":"c9","unresolvedFields":1,"fields":{"Unknown":"a"}}',
  '{"id":"c10","meta":{"fields":{"City":"a"}}}',
];

describe('RecordText: a contact RECORD from the row text as sent', () => {
  it('rows shaped as the API sends them are written from their text: the same record as the general path, digits as sent', () => {
    const fields = new ContactFields(DEFS);
    const text = recordText();
    for (const row of PLAIN_ROWS) {
      const written = text.write(JSON.parse(row), row);
      expect(written, row).toBeDefined();
      expect(written).not.toMatch(/[\r\n]/);
      expect(parseJson(written!), row).toEqual(parseJson(general(fields, row)));
      expect(fields.recordText(JSON.parse(row), row)).toBe(written);
    }
    expect(text.write(JSON.parse(PLAIN_ROWS[1]), PLAIN_ROWS[1])).toBe(
      '{"id": "c2", "email": null,"city":"Bergen","score":9007199254740993}',
    );
    expect(text.write(JSON.parse(PLAIN_ROWS[3]), PLAIN_ROWS[3])).toBe(
      '{"id":"c4","city":"say \\"hi\\" \\\\","score":-1.50e+3,"unresolvedFields":{"Unknown":true,"Region":null}}',
    );
    expect(text.write(JSON.parse(PLAIN_ROWS[2]), PLAIN_ROWS[2])).toBe(
      '{"id":"c3","score":12345678901234567890123456789012345678901234567890,"city":"x"}',
    );
  });

  it('a field keyed like a contact member (email) and one keyed field_email each get a property of their own, as in the general path', () => {
    const row = '{"id":"c1","fields":{"Other email":"o@example.com","Work email":"w@example.com"}}';
    // email is field_email (a contact member's name); field_email's own key starts with field_: field_field_email.
    expect(recordText().write(JSON.parse(row), row)).toBe(
      '{"id":"c1","field_field_email":"o@example.com","field_email":"w@example.com"}',
    );
    expect(parseJson(general(new ContactFields(DEFS), row))).toEqual(
      parseJson(recordText().write(JSON.parse(row), row)!),
    );
  });

  it('declines the rows whose rules are not plain, and ContactFields.recordText writes them by the general path', () => {
    const fields = new ContactFields(DEFS);
    const text = recordText();
    for (const row of ODD_ROWS) {
      expect(text.write(JSON.parse(row), row), row).toBeUndefined();
      expect(fields.recordText(JSON.parse(row), row)).toBe(general(fields, row));
    }
    // The same text after a declined row: the caches serve the next plain row again.
    expect(text.write(JSON.parse(PLAIN_ROWS[0]), PLAIN_ROWS[0])).toBeDefined();
  });

  it('deselected properties are left out; a deselected contact member sends the row to the general path', () => {
    const excluded = new Set(['score', 'unresolvedFields']);
    const fields = new ContactFields(DEFS, excluded);
    const text = recordText(excluded);
    const row = '{"id":"c1","email":"a@example.com","fields":{"City":"Oslo","Score":7,"Unknown":1}}';
    expect(text.write(JSON.parse(row), row)).toBe('{"id":"c1","email":"a@example.com","city":"Oslo"}');
    expect(parseJson(general(fields, row))).toEqual(parseJson(text.write(JSON.parse(row), row)!));
    const noEmail = new Set(['email']);
    expect(recordText(noEmail).write(JSON.parse(row), row)).toBeUndefined();
    expect(new ContactFields(DEFS, noEmail).recordText(JSON.parse(row), row)).toBe(
      '{"id":"c1","city":"Oslo","score":7,"unresolvedFields":{"Unknown":1}}',
    );
  });

  it('rows of changing shapes, and new definitions, are each written by their own labels', () => {
    const fields = new ContactFields([def('city', 'City')]);
    const rows = [
      '{"id":"a","fields":{"City":"x","Tier":"gold"}}',
      '{"id":"b","fields":{"Tier":"silver"}}',
      '{"id":"c", "fields": {"City": "y"}}',
      '{"id":"d","fields":{"City":"z","Tier":"gold"}}',
    ];
    expect(rows.map((r) => fields.recordText(JSON.parse(r), r))).toEqual([
      '{"id":"a","city":"x","unresolvedFields":{"Tier":"gold"}}',
      '{"id":"b","unresolvedFields":{"Tier":"silver"}}',
      '{"id":"c","city":"y"}',
      '{"id":"d","city":"z","unresolvedFields":{"Tier":"gold"}}',
    ]);
    expect(fields.unknownLabel(JSON.parse(rows[0]))).toBe('Tier');
    fields.use([def('city', 'City'), def('tier', 'Tier')]);
    expect(fields.unknownLabel(JSON.parse(rows[0]))).toBeUndefined();
    expect(fields.recordText(JSON.parse(rows[3]), rows[3])).toBe('{"id":"d","city":"z","tier":"gold"}');
  });

  it('generated rows (shapes, spacing, values at random, a label sometimes twice): the same record as the general path, row after row', () => {
    let seed = 37;
    const pick = <T>(xs: readonly T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length];
    const shapes = [
      ['City', 'Score'],
      ['City', 'Score', 'Tier'],
      ['Region', 'Work email', 'Other email'],
      ['Proto', 'é', 'Region (regionA)', 'City'],
    ];
    const values = [
      '"x"',
      '"a\\"b"',
      '""',
      '9007199254740993',
      '-0.10',
      '1e400',
      'null',
      'true',
      '"fields"',
      '"}"',
      '"A:B"',
    ];
    const heads = [['"id":"c"'], ['"id":"c"', '"email":"e@x.io"'], ['"updatedAt":"2025-01-01T00:00:00Z"', '"id":"c"']];
    const spacings = [
      [':', ','],
      [':', ','],
      [':', ','],
      [': ', ', '],
      [':', ',\n  '],
    ];
    const fields = new ContactFields(DEFS);
    const text = recordText();
    // The row read faster by the labels of the row before: taken for some rows, declined for a label twice.
    const known = vi.spyOn(RecordText.prototype as unknown as { knownFields(): boolean }, 'knownFields');
    for (let n = 0; n < 800; n++) {
      const [colon, comma] = pick(spacings);
      const members = [...pick(shapes)];
      const twice = pick([false, false, false, false, true]);
      if (twice) members.splice(pick([0, 1, 2]), 0, pick(members));
      const inner = members.map((label) => `${JSON.stringify(label)}${colon}${pick(values)}`).join(comma);
      const row = `{${[...pick(heads), `"fields"${colon}{${inner}}`].join(comma)}}`;
      const written = text.write(JSON.parse(row), row);
      expect(written === undefined, row).toBe(twice);
      expect(parseJson(fields.recordText(JSON.parse(row), row)), row).toEqual(parseJson(general(fields, row)));
      if (written !== undefined) expect(written).toBe(fields.recordText(JSON.parse(row), row));
    }
    expect(known).toHaveReturnedWith(true);
    expect(known).toHaveReturnedWith(false);
    known.mockRestore();
  });
});
