import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvLayout, rowCells } from '../../src/exporter/csv-layout.js';
import { BlockPool, PageBytes, pageFormat, type PageFormat } from '../../src/exporter/page-format.js';

const LABELS = ['First name', 'City', 'email', 'Score'];
/** Contact fields of these labels, as GET /v2/fields lists them. */
const fieldsOf = (labels: string[]) => labels.map((label, i) => ({ key: `k${i}`, label }));

describe('CSV columns', () => {
  it('contacts: fixed fields, one column per field label (a clashing label is prefixed), then _extra', () => {
    expect(csvLayout('contacts', fieldsOf(LABELS)).columns).toEqual([
      'id',
      'sfdcLeadId',
      'sfdcContactId',
      'sfdcAccountId',
      'email',
      'subscriptionStatus',
      'createdAt',
      'updatedAt',
      'First name',
      'City',
      'fields.email',
      'Score',
      '_extra',
    ]);
    expect(csvLayout('custom-events', []).columns.at(-2)).toBe('data');
  });

  it('--fields-by key: a column per field key (a clashing key prefixed), read from the member the row names by label; _extra counted', () => {
    const fields = [
      { key: 'city', label: 'City' },
      { key: 'email', label: 'Mail' },
      { key: '__proto__', label: 'Proto' },
    ];
    const layout = csvLayout('contacts', fields, undefined, 'key');
    expect(layout.columns.slice(8)).toEqual(['city', 'fields.email', '__proto__', '_extra']);
    expect(layout.fieldKeys).toEqual({ city: 'city', 'fields.email': 'email', ['__proto__']: '__proto__' });
    const count = { values: 0, rows: 0, members: new Set<string>() };
    const cells = rowCells('contacts', layout, { count });
    const row = { id: 'c1', email: 'a@example.com', fields: { City: 'Oslo', Mail: 'm', Proto: 1, Tier: 'Gold' } };
    expect(cells(row).slice(8)).toEqual(['Oslo', 'm', '1', '{"fields.Tier":"Gold"}']);
    cells({ id: 'c2', fields: { City: 'Rome' } });
    expect(count).toEqual({ values: 1, rows: 1, members: new Set(['fields.Tier']) });
    expect(csvLayout('contacts', fields, ['id', 'city'], 'key').columns).toEqual(['id', 'city', '_extra']);
  });

  it('--columns picks and orders columns, by label or fields.label; unknown names are usage errors', () => {
    const layout = csvLayout('contacts', fieldsOf(LABELS), ['email', 'City', 'fields.Score', 'fields.email']);
    expect(layout.columns).toEqual(['email', 'City', 'Score', 'fields.email', '_extra']);
    expect(layout.omitted).toContain('fields.First name');
    expect(layout.omitted).toContain('sfdcLeadId');
    expect(() => csvLayout('contacts', fieldsOf(LABELS), ['nope'])).toThrow(/--columns: no column "nope"/);
    expect(() => csvLayout('email-events', [], ['First name'])).toThrow(/no column/);
  });

  it('a value whose key has no column goes to _extra as JSON, never dropped; what --columns left out is dropped', () => {
    const cells = rowCells('contacts', csvLayout('contacts', fieldsOf(['City'])));
    const row = {
      id: 'c1',
      email: 'a@b.c',
      createdAt: 't',
      fields: { City: 'Oslo', 'New label': 7 },
      newMember: { x: [1] },
    };
    const out = cells(row);
    expect(out.slice(0, 10)).toEqual(['c1', '', '', '', 'a@b.c', '', 't', '', 'Oslo', expect.any(String)]);
    expect(JSON.parse(out[9])).toEqual({ 'fields.New label': 7, newMember: { x: [1] } });
    const picked = rowCells('contacts', csvLayout('contacts', fieldsOf(['City']), ['id']))(row);
    expect(picked).toEqual(['c1', JSON.stringify({ 'fields.New label': 7, newMember: { x: [1] } })]);
  });

  it('fields that share a label (also in another Unicode form) each get a column `Label (key)`, holding the member the row keys them by', () => {
    const fields = [
      { key: 'score', label: 'Score' },
      { key: 'score2', label: 'Score' },
      { key: 'cafe', label: 'Caf\u00e9' },
      { key: 'cafe2', label: 'Cafe\u0301' },
      { key: 'city', label: 'City' },
    ];
    const layout = csvLayout('contacts', fields);
    expect(layout.columns.slice(8)).toEqual([
      'Score (score)',
      'Score (score2)',
      'Caf\u00e9 (cafe)',
      'Cafe\u0301 (cafe2)',
      'City',
      '_extra',
    ]);
    // The row keys the later field of a label `Label (key)`; two spellings of one label are two members.
    const row = {
      id: 'c1',
      fields: { Score: 1, 'Score (score2)': 2, 'Caf\u00e9': 'a', 'Cafe\u0301': 'b', City: 'Oslo' },
    };
    expect(rowCells('contacts', layout)(row).slice(8)).toEqual(['1', '2', 'a', 'b', 'Oslo', '']);
    const picked = csvLayout('contacts', fields, ['id', 'Score (score2)']);
    expect(rowCells('contacts', picked)(row)).toEqual(['c1', '2', '']);
    expect(picked.omitted).toContain('fields.Score');
  });

  it('events: data and arrays as JSON, booleans and dates as sent, null empty', () => {
    const email = rowCells('email-events', csvLayout('email-events', []));
    const cells = email({
      eventId: 'e',
      isBot: false,
      topicIds: ['t1', 't2'],
      occurredAt: '2025-01-01T00:00:00.000Z',
      link: null,
    });
    expect(cells[0]).toBe('e');
    expect(cells[3 - 1]).toBe('2025-01-01T00:00:00.000Z');
    expect(cells[9]).toBe('false');
    expect(cells[10]).toBe('');
    expect(cells[11]).toBe('["t1","t2"]');
    const custom = rowCells('custom-events', csvLayout('custom-events', []));
    expect(custom({ eventId: 'e', data: { a: { b: 1 } } })[9]).toBe('{"a":{"b":1}}');
  });
});

describe('CSV output (RFC 4180)', () => {
  it('quotes every value with a comma, quote, CR or LF; a real parser reads back CR, LF, quotes and U+2028', async () => {
    const format = await pageFormat({
      kind: 'custom-events',
      format: 'csv',
      layout: csvLayout('custom-events', []),
      bom: true,
    });
    const tricky = ['a,b', 'say "hi"', 'bare\rcr', 'bare\nlf', 'crlf\r\nend', 'line\u2028separator', ' spaced ', ''];
    const rows = tricky.map((v, i) => ({ eventId: `e${i}`, eventName: v, data: { v } }));
    const text = Buffer.concat([format.preamble(), pageOf(format, rows)]).toString('utf8');
    expect(text.startsWith('\uFEFFeventId,')).toBe(true);
    for (const v of ['a,b', 'bare\rcr', 'bare\nlf']) expect(text).toContain(`"${v}"`);
    expect(text).toContain('"say ""hi"""');
    const parsed = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(parsed.map((r) => r.eventName)).toEqual(tricky);
    expect(parsed.map((r) => JSON.parse(r.data).v)).toEqual(tricky);
    expect(text.split('\r\n')[0]).toBe('\uFEFF' + csvLayout('custom-events', []).columns.join(','));
  });

  it('--null-as: null cells hold the marker, empty strings stay empty, a text equal to the marker is quoted', async () => {
    const layout = csvLayout('contacts', fieldsOf(['City', 'Note']));
    const format = await pageFormat({ kind: 'contacts', format: 'csv', layout, nullAs: '\\N' });
    const rows = [
      { id: 'c1', email: null, sfdcLeadId: '', fields: { City: null, Note: '\\N' } },
      { id: 'c2', email: 'a@b.c', fields: { City: 'Oslo', Note: 'x' }, gone: null },
    ];
    const text = pageOf(format, rows).toString('utf8');
    // Columns: id, sfdcLeadId, sfdcContactId, sfdcAccountId, email, subscriptionStatus, createdAt, updatedAt, City, Note, _extra.
    // null is \\N; "" and a member the row does not have are empty; the text "\\N" is quoted (PostgreSQL COPY reads it as text).
    expect(text.split('\r\n')).toEqual(['c1,,,,\\N,,,,\\N,"\\N",', 'c2,,,,a@b.c,,,,Oslo,x,"{""gone"":null}"', '']);
    // The default is unchanged: null and "" are both an empty cell.
    const plain = await pageFormat({ kind: 'contacts', format: 'csv', layout });
    expect(pageOf(plain, rows.slice(0, 1)).toString('utf8')).toBe('c1,,,,,,,,,\\N,\r\n');
  });

  it('NDJSON is one row per line exactly as sent (unknown members and their order kept), no BOM', async () => {
    const format = await pageFormat({ kind: 'contacts', format: 'ndjson', layout: null });
    const rows = [{ zeta: 1, id: 'x', fields: { 'A b': 'line\u2028two' } }, { id: 'y' }];
    expect(format.preamble().length).toBe(0);
    const text = pageOf(format, rows).toString('utf8');
    expect(text.split('\n')).toEqual(['{"zeta":1,"id":"x","fields":{"A b":"line\u2028two"}}', '{"id":"y"}', '']);
  });

  it('a page is made of UTF-8 pieces whose lengths add up, however long the page or its lines', () => {
    const pool = new BlockPool();
    const page = (seed: number) => {
      const lines = Array.from(
        { length: 20_000 },
        (_, i) => `{"id":"${seed}-${i}","name":"Zoë 😀 ${'x'.repeat(i % 50)}"}\n`,
      );
      lines.splice(777, 0, `{"huge":"${'é'.repeat(300_000)}"}\n`); // longer than a block by itself
      return lines;
    };
    const first = page(1);
    const bytes = new PageBytes(pool);
    for (const line of first) bytes.add(line);
    const one = bytes.done();
    expect(one.pieces.length).toBeGreaterThan(3);
    expect(one.bytes).toBe(Buffer.byteLength(first.join('')));
    expect(Buffer.concat(one.pieces).toString('utf8')).toBe(first.join(''));
    one.release();
    // The next page reuses the blocks handed back, and says its own text.
    const second = page(2);
    const again = new PageBytes(pool);
    for (const line of second) again.add(line);
    expect(Buffer.concat(again.done().pieces).toString('utf8')).toBe(second.join(''));
  });
});

function pageOf(format: PageFormat, rows: Record<string, unknown>[]): Buffer {
  const bytes = new PageBytes();
  for (const row of rows) bytes.add(format.line(row));
  return Buffer.concat(bytes.done().pieces);
}
