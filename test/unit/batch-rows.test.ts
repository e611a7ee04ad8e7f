import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { batchAddColumns, prepareIdentifierRow } from '../../src/batch/contact-batch-add.js';
import {
  ColumnResolver,
  NO_COLUMN_FLAGS,
  type ColumnFlags,
  type ColumnRules,
} from '../../src/batch/columns/column-resolver.js';
import type { FieldsByParent } from '../../src/batch/columns/field-match.js';
import { FileColumns } from '../../src/batch/columns/file-columns.js';
import { InvalidRowError, renameRow, shapeRow } from '../../src/batch/row-body.js';
import { derivedClientEventId, prepareTrackRow, TRACK_COLUMNS } from '../../src/commands/events/track-file.js';
import { prepareUpsertRow, UPSERT_COLUMNS } from '../../src/contacts/file-row.js';
import { NumberConvention } from '../../src/input/number-convention.js';
import { ExactNumber, stringifyJson } from '../../src/lib/exact-number.js';

const csv = (values: Record<string, string>, line = 2) => ({ line, values, textual: true });
const def = (
  key: string,
  label: string,
  dataType: string,
  objectType = 'CONTACT',
  readOnly = false,
): FieldDefinition => ({ key, label, dataType, objectType, readOnly });
const CONTACT_DEFS: FieldsByParent = new Map([
  [
    'fields',
    new Map([
      ['firstName', def('firstName', 'First name', 'STRING')],
      ['city', def('city', 'City', 'STRING')],
      ['zip', def('zip', 'Zip code', 'STRING')],
      ['score', def('score', 'Score', 'NUMBER')],
      ['vip', def('vip', 'VIP', 'BOOLEAN')],
      ['leadScore', def('leadScore', 'Lead score', 'NUMBER', 'CONTACT', true)],
    ]),
  ],
  ['companyFields', new Map([['industry', def('industry', 'Industry', 'STRING', 'COMPANY')]])],
]);

/** A resolver as a run has it after the header: definitions read (or none, as when they cannot be). */
function resolver(
  rules: ColumnRules,
  flags: Partial<ColumnFlags> = {},
  defs: FieldsByParent | undefined = undefined,
): ColumnResolver {
  const r = new ColumnResolver(rules, { ...NO_COLUMN_FLAGS, ...flags });
  r.useDefinitions(defs);
  return r;
}
const upsert = (flags: Partial<ColumnFlags> = {}) => resolver(UPSERT_COLUMNS, flags, CONTACT_DEFS);
const bareUpsert = () => resolver(UPSERT_COLUMNS);
const BATCH_ADD = resolver(batchAddColumns('POST /v2/audiences/x/contacts/batch'));
const TRACK = resolver(TRACK_COLUMNS);

describe('shapeRow', () => {
  it('a CSV row becomes a body: identifiers stay text, fields typed by definition, other cells JSON when they parse, blanks go', () => {
    const row = csv({
      EMAIL: ' a@example.com ',
      Score: '42',
      'fields.city': 'Paris',
      'Zip code': '01234',
      firstName: '"Bob"',
      updateOnly: 'true',
      'companyFields.industry': 'Retail',
      empty: ' ',
    });
    expect(shapeRow(row, upsert({ ignore: ['empty'] })).body).toEqual({
      email: 'a@example.com',
      updateOnly: true,
      fields: { score: 42, city: 'Paris', zip: '01234', firstName: '"Bob"' },
      companyFields: { industry: 'Retail' },
    });
  });

  it('numbers keep every digit, from a typed cell, a JSON cell and a JSON row', () => {
    const { body } = shapeRow(
      csv({ email: 'a@b.co', score: '9007199254740993', 'data.n': '123456789012345678901234567890' }),
      resolver(
        { ...UPSERT_COLUMNS, keys: [...UPSERT_COLUMNS.keys, 'data'], objects: [...UPSERT_COLUMNS.objects, 'data'] },
        {},
        CONTACT_DEFS,
      ),
    );
    expect(stringifyJson(body)).toBe(
      '{"email":"a@b.co","fields":{"score":9007199254740993},"data":{"n":123456789012345678901234567890}}',
    );
    const json = shapeRow(
      { line: 1, values: { email: 'a@b.co', fields: { score: new ExactNumber('9007199254740993') } } },
      upsert(),
    ).body;
    expect(stringifyJson(json)).toBe('{"email":"a@b.co","fields":{"score":9007199254740993}}');
  });

  it('without definitions fields.KEY keeps the JSON-when-it-parses rule ("..." keeps digits as text)', () => {
    expect(shapeRow(csv({ email: 'a@b.co', 'fields.zip': '"01234"', 'fields.n': '7' }), bareUpsert()).body).toEqual({
      email: 'a@b.co',
      fields: { zip: '01234', n: 7 },
    });
  });

  it('JSON rows are bodies as they are; their keys resolve like CSV headers (any case, spacing, labels)', () => {
    expect(
      shapeRow(
        { line: 1, values: { Email: 'a@b.co', 'First name': 'Ann', fields: { city: 'Oslo' }, VIP: 'yes' } },
        upsert(),
      ).body,
    ).toEqual({
      email: 'a@b.co',
      fields: { firstName: 'Ann', city: 'Oslo', vip: 'yes' },
    });
  });

  it('finds the identifiers as other tools spell them', () => {
    for (const name of ['E-mail', 'Email Address', 'email address', 'EMAIL_ADDRESS', 'e_mail'])
      expect(shapeRow(csv({ [name]: 'a@b.co' }), BATCH_ADD).body, name).toEqual({ email: 'a@b.co' });
    for (const name of ['User ID', 'user_id', 'USERID', 'user-id'])
      expect(shapeRow({ line: 1, values: { [name]: 'u1' } }, BATCH_ADD).body, name).toEqual({ userId: 'u1' });
    const id = 'a0000000-0000-4000-8000-000000000001';
    for (const name of ['Contact ID', 'contact_id', 'cnv_contact_id', 'id', 'cnvContactId'])
      expect(shapeRow(csv({ [name]: id }), BATCH_ADD).body, name).toEqual({ cnvContactId: id });
  });

  it('a "Contact ID" (or "id") that holds no UUID does not hide the row\'s email, and the note says which column identified the row', () => {
    const shaped = shapeRow(csv({ 'Contact ID': '12345', Email: 'a@b.co' }), upsert());
    expect(shaped.body).toEqual({ email: 'a@b.co' });
    expect(shaped.note).toBe(
      'identified by email: "Contact ID" holds "12345", not a cnvContactId (UUID), so it was not sent',
    );
    // Alone, it is sent to be judged (the row is then invalid); spelt cnvContactId it is never set aside.
    expect(shapeRow(csv({ 'Contact ID': '12345' }), upsert()).body).toEqual({ cnvContactId: '12345' });
    expect(shapeRow(csv({ cnvContactId: '12345', email: 'a@b.co' }), upsert()).body).toEqual({
      cnvContactId: '12345',
      email: 'a@b.co',
    });
  });

  it('two columns or keys naming one destination, both given, make the row invalid (which was meant is not guessed)', () => {
    expect(() => shapeRow({ line: 1, values: { Email: 'a@b.co', email: 'c@d.co' } }, BATCH_ADD)).toThrow(
      InvalidRowError,
    );
    expect(() => shapeRow(csv({ 'E-mail': 'a@b.co', 'Email Address': 'c@d.co' }), BATCH_ADD)).toThrow(
      /"Email Address" and another column or key both name email/,
    );
    expect(shapeRow(csv({ 'E-mail': 'a@b.co', email: '' }), BATCH_ADD).body).toEqual({ email: 'a@b.co' });
    expect(() =>
      shapeRow({ line: 1, values: { email: 'a@b.co', city: 'X', fields: { city: 'Y' } } }, upsert()),
    ).toThrow(/both name fields\.city/);
  });

  it('a key first seen after the file was checked, that names nothing, makes the row invalid (unknown_column)', () => {
    expect(() => shapeRow({ line: 9, values: { email: 'a@b.co', nonsense: 1 } }, upsert())).toThrow(
      expect.objectContaining({ code: 'unknown_column' }),
    );
  });

  it('--pass-column sends a column as a body member under its own name; --map targets body.NAME, fields and -', () => {
    const r = upsert({
      pass: ['syncToCrm'],
      map: [
        { column: 'Sync', target: 'body.preserveExisting', source: '--map' },
        { column: 'Vorname', target: 'First name', source: '--map' },
        { column: 'Record ID', target: '-', source: '--map' },
      ],
    });
    expect(
      shapeRow(csv({ email: 'a@b.co', syncToCrm: 'true', Sync: 'false', Vorname: 'Jörg', 'Record ID': '77' }), r).body,
    ).toEqual({
      email: 'a@b.co',
      syncToCrm: true,
      preserveExisting: false,
      fields: { firstName: 'Jörg' },
    });
  });

  it('renameRow (records) renames columns to field keys and drops left-out columns, values untouched', () => {
    const defs: FieldsByParent = new Map([
      ['fields', new Map([['seats', def('seats', 'Seats', 'NUMBER', 'CUSTOM_OBJECT')]])],
    ]);
    const rules: ColumnRules = {
      endpoint: 'POST /records',
      keys: ['clientDedupKey', 'fields'],
      identifiers: ['clientDedupKey'],
      text: ['clientDedupKey'],
      objects: ['fields'],
      fieldParents: ['fields'],
      bareColumnsAreFields: true,
    };
    const r = resolver(rules, { ignore: ['note'] }, defs);
    expect(renameRow(csv({ 'Client Dedup Key': 'k1', SEATS: '3', note: 'x' }), r).values).toEqual({
      clientDedupKey: 'k1',
      seats: '3',
    });
    expect(renameRow(csv({ clientDedupKey: 'k1', whatever: '3' }), resolver(rules), false).values).toEqual({
      clientDedupKey: 'k1',
      whatever: '3',
    });
  });
});

describe('prepare functions', () => {
  it('batch adds, upserts and events find the identifier in capitalised JSON keys and alias CSV headers', () => {
    expect(prepareIdentifierRow({ line: 1, values: { Email: 'a@example.com' } }, BATCH_ADD)).toEqual({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com' },
    });
    expect(prepareIdentifierRow({ line: 1, values: { UserId: 'u-2' } }, BATCH_ADD)).toEqual({
      identifier: 'u-2',
      payload: { userId: 'u-2' },
    });
    expect(prepareIdentifierRow(csv({ 'Email Address': 'a@example.com', 'First Name': 'Ann' }), BATCH_ADD)).toEqual({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com' },
    });
    expect(
      prepareUpsertRow({ line: 1, values: { Email: 'a@example.com', SubscriptionStatus: 'subscribed' } }, {}, upsert()),
    ).toEqual({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com', subscriptionStatus: 'SUBSCRIBED' },
    });
    expect(
      prepareTrackRow({ line: 1, values: { Event: 'signup', 'User ID': 'u-1', ClientEventId: 'e1' } }, {}, TRACK),
    ).toEqual({
      identifier: 'e1',
      payload: { event: 'signup', userId: 'u-1', clientEventId: 'e1' },
    });
    expect(prepareTrackRow({ line: 1, index: 0, values: { event: 'x', email: '' } }, {}, TRACK)).toMatchObject({
      invalid: {
        error: 'missing_identifier',
        message: 'no identifier: give userId (or User ID) or email (or Email Address, E-mail), in any case',
      },
    });
  });

  it('a batch add sends the one identifier that takes precedence, and says which column identified a row', () => {
    expect(prepareIdentifierRow(csv({ email: 'a@example.com', userId: 'u1', cnvContactId: '' }), BATCH_ADD)).toEqual({
      identifier: 'u1',
      payload: { userId: 'u1' },
    });
    const id = 'a0000000-0000-4000-8000-000000000001';
    expect(prepareIdentifierRow(csv({ email: 'a@example.com', cnvcontactid: id }), BATCH_ADD)).toEqual({
      identifier: id,
      payload: { cnvContactId: id },
    });
    expect(prepareIdentifierRow(csv({ 'Contact ID': '901', email: 'a@example.com' }), BATCH_ADD)).toMatchObject({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com' },
      note: expect.stringMatching(/^identified by email/),
    });
  });

  it('a batch add gives the API error code of what is wrong', () => {
    expect(prepareIdentifierRow(csv({ email: 'nope' }), BATCH_ADD)).toMatchObject({
      identifier: 'nope',
      invalid: { error: 'invalid_email' },
    });
    expect(prepareIdentifierRow(csv({ cnvContactId: 'x' }), BATCH_ADD)).toMatchObject({
      invalid: { error: 'invalid_request', message: expect.stringMatching(/^cnvContactId: expected a UUID/) },
    });
    expect(prepareIdentifierRow(csv({ email: '', other: 'x' }), BATCH_ADD)).toEqual({
      identifier: '',
      invalid: {
        error: 'missing_identifier',
        message:
          'no identifier: give email (or Email Address, E-mail), cnvContactId (or Contact ID, id) or userId (or User ID), in any case',
      },
    });
    expect(prepareIdentifierRow({ line: 1, values: { userId: 42 } }, BATCH_ADD)).toMatchObject({
      invalid: { error: 'invalid_request' },
    });
  });

  it('an upsert overlays the row on the flag defaults, merging fields; status in any case', () => {
    const prepared = prepareUpsertRow(
      csv({ email: 'a@example.com', subscriptionStatus: 'subscribed', 'fields.city': 'Rome' }),
      { fields: { source: 'import', city: 'x' }, updateOnly: true },
      upsert(),
    );
    expect(prepared).toEqual({
      identifier: 'a@example.com',
      payload: {
        email: 'a@example.com',
        subscriptionStatus: 'SUBSCRIBED',
        fields: { source: 'import', city: 'Rome' },
        updateOnly: true,
      },
    });
  });

  it("an upsert refuses what the API would refuse; a status the system sets (an export's BOUNCED) is left out with a note", () => {
    expect(prepareUpsertRow(csv({ userId: 'u1' }), {}, resolver(UPSERT_COLUMNS, { pass: ['userId'] }))).toMatchObject({
      invalid: { error: 'missing_identifier' },
    });
    expect(
      prepareUpsertRow(csv({ email: 'a@example.com', subscriptionStatus: 'SUBSCRIBD' }), {}, upsert()),
    ).toMatchObject({ invalid: { error: 'invalid_subscription_status' } });
    expect(
      prepareUpsertRow(csv({ email: 'a@example.com', subscriptionStatus: 'BOUNCED', City: 'Oslo' }), {}, upsert()),
    ).toEqual({
      identifier: 'a@example.com',
      payload: { email: 'a@example.com', fields: { city: 'Oslo' } },
      note: 'subscriptionStatus "BOUNCED" is set by the system, not through the API: not sent',
    });
    expect(prepareUpsertRow({ line: 1, values: { email: 'a@example.com', fields: [1] } }, {}, upsert())).toMatchObject({
      invalid: { error: 'invalid_field' },
    });
    expect(prepareUpsertRow(csv({ email: 'a@example.com', updateOnly: 'maybe' }), {}, upsert())).toMatchObject({
      invalid: { error: 'invalid_request' },
    });
    expect(
      prepareUpsertRow(csv({ email: 'a@example.com', Score: '3,5' }), {}, upsert(), {
        coerce: { numbers: new NumberConvention('point') },
      }),
    ).toMatchObject({
      invalid: {
        error: 'invalid_field',
        message:
          'fields.score (column "Score"): field "score" (NUMBER): "3,5" is not a number written with a decimal point (--decimal-point); with a decimal comma it is 3.5',
      },
    });
    expect(
      prepareUpsertRow(csv({ email: 'a@example.com', Score: '1.234,5' }), {}, upsert(), {
        coerce: { numbers: new NumberConvention('comma') },
      }),
    ).toMatchObject({ payload: { fields: { score: 1234.5 } } });
  });

  it('messages escape control characters and cut long values', () => {
    const hostile = `\u001b]0;owned\u0007${'y'.repeat(5000)}`;
    const prepared = prepareUpsertRow(csv({ email: hostile }), {}, upsert());
    expect(prepared).toMatchObject({
      invalid: {
        error: 'invalid_email',
        message: expect.stringMatching(/^email: expected an email address, got "\\u001b\]0;owned\\u0007y+\.\.\."$/),
      },
    });
    expect(prepared.invalid!.message.length).toBeLessThan(120);
    expect(
      prepareUpsertRow(
        { line: 1, values: { email: 'a@example.com', updateOnly: { deep: ['\u009b', 'z'.repeat(500)] } } },
        {},
        upsert(),
      ).invalid!.message,
    ).toMatch(/^updateOnly: expected true or false, got \{"deep":\["\\u009b","z+\.\.\.$/);
  });
});

describe('derivedClientEventId', () => {
  it('is stable for the same values at the same place among the rows, whatever the line; differs by place or content', () => {
    const a = derivedClientEventId({ line: 1, index: 2, values: { event: 'x', email: 'a@example.com' } });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedClientEventId({ line: 7, index: 2, values: { email: 'a@example.com', event: 'x' } })).toBe(a);
    // Two identical elements of a JSON array on one line are two events.
    expect(derivedClientEventId({ line: 1, index: 3, values: { event: 'x', email: 'a@example.com' } })).not.toBe(a);
    expect(derivedClientEventId({ line: 1, index: 2, values: { event: 'y', email: 'a@example.com' } })).not.toBe(a);
    expect(() => derivedClientEventId({ line: 1, values: { event: 'x' } })).toThrow(/place/);
  });
});

describe('a header of 20,000 columns', () => {
  const header = ['email', ...Array.from({ length: 20_000 }, (_, i) => `Column ${i}`)];

  it('is resolved a few thousand columns at a time, a signal stopping it between two (before: to the end, however long)', async () => {
    const stop = new AbortController();
    const columns = await FileColumns.open(
      { rules: UPSERT_COLUMNS, definitions: async () => CONTACT_DEFS },
      {},
      'wide.csv',
      stop.signal,
    );
    stop.abort(new Error('SIGTERM came'));
    await expect(columns.start(header, [])).rejects.toThrow('SIGTERM came');
  });

  it('a map of each column: resolved through the map, the column table one line per column', async () => {
    const map = header.slice(1).map((column) => `${column}=-`);
    const columns = await FileColumns.open(
      { rules: UPSERT_COLUMNS, definitions: async () => CONTACT_DEFS },
      { map },
      'wide.csv',
    );
    await columns.start(header, []);
    const entries = columns.entries();
    expect(entries).toHaveLength(header.length);
    expect(entries[1]).toEqual({ column: 'Column 0', sentAs: null, note: 'ignored (--map)', via: '--map' });
  });
});
