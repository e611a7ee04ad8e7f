// One measurement of export page parsing, in a fresh process (so one way's heap does not tax
// the other's): `node page-parse.mjs splitter|parse compact|spaced PAGES`, prints JSON
// { usPerRow } on stdout. Used by test/bench/suites/parsers.mjs.
//   splitter: src/lib/json-rows.ts, rows handed over as the 64 KiB chunks arrive (what cnv does);
//   parse:    the chunks gathered, then one JSON.parse of the whole page (undici's body.json()).
import { StringDecoder } from 'node:string_decoder';

const [way, layout, pagesArg] = process.argv.slice(2);
const pages = Number(pagesArg);
const { JsonRowSplitter } = await import(new URL('../../../dist/lib/json-rows.js', import.meta.url).href);

/** A contacts row as the export endpoint sends it. */
function contact(i) {
  const hex = (n, w) => n.toString(16).padStart(w, '0');
  return {
    id: `${hex(i, 8)}-1b2a-4c3d-9e8f-${hex(i * 7919, 12)}`,
    sfdcLeadId: i % 3 === 0 ? `00Q${hex(i, 15)}` : null,
    sfdcContactId: null,
    sfdcAccountId: null,
    email: `person.${i}@example.com`,
    subscriptionStatus: i % 5 === 0 ? 'UNSUBSCRIBED' : 'SUBSCRIBED',
    createdAt: '2025-01-02T03:04:05.000Z',
    updatedAt: '2025-03-04T05:06:07.000Z',
    fields: { firstName: `First ${i}`, lastName: 'Zoë "Q" Müller', city: 'Saint-Denis, Réunion', score: i % 101 },
  };
}

/** JSON as Python's json.dumps writes it: `", "` and `": "` separators. */
function spaced(value) {
  if (Array.isArray(value)) return `[${value.map(spaced).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${spaced(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

const PER_PAGE = 5000;
const doc = {
  data: { contacts: Array.from({ length: PER_PAGE }, (_, i) => contact(i)) },
  pagination: { nextCursor: 'c'.repeat(40) },
};
const bytes = Buffer.from(layout === 'spaced' ? spaced(doc) : JSON.stringify(doc));
const chunks = [];
for (let i = 0; i < bytes.length; i += 64 * 1024) chunks.push(bytes.subarray(i, i + 64 * 1024));

let seen = 0;
// What the receiver does with a row is the same either way; a touch keeps it from being optimised out.
const take = (row) => {
  if (typeof row === 'object' && row !== null) seen++;
};
const ways = {
  splitter() {
    const s = new JsonRowSplitter('contacts', take, () => {
      throw new Error('not an object');
    });
    const decoder = new StringDecoder('utf8');
    for (const chunk of chunks) s.write(decoder.write(chunk));
    s.write(decoder.end());
    s.end();
  },
  parse() {
    const page = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const row of page.data.contacts) take(row);
  },
};
const once = ways[way];
if (!once) throw new Error(`unknown way ${way}`);
for (let w = 0; w < 3; w++) once();
seen = 0;
const started = process.hrtime.bigint();
for (let p = 0; p < pages; p++) once();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
if (seen !== pages * PER_PAGE) throw new Error(`saw ${seen} rows`);
process.stdout.write(JSON.stringify({ usPerRow: (ms * 1000) / seen, pageBytes: bytes.length }) + '\n');
