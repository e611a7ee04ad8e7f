import { describe, expect, it, vi } from 'vitest';
import type { FieldDefinition } from '../../src/endpoints/fields.js';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { fieldKeys } from '../../src/exporter/fields-by-key.js';
import { parseJson } from '../../src/json/exact-json.js';
import { stringifyJson } from '../../src/lib/exact-number.js';
import { ContactFields } from '../../src/tap/contact-record.js';
import { RecordText } from '../../src/tap/record-text.js';
import { fieldProperty } from '../../src/tap/schemas.js';

// A differential fuzz of the contacts RECORD (ContactFields.recordText: the fast path from the
// row's text, or the general one where it declines) against the record made from the row as
// JSON reads it: `stringifyJson(parseJson(record))` must equal `stringifyJson(expected)` for
// every row, where `expected` is built here from `parseJson(row)`, independently of the tap's
// code. Rows of runs of a few shapes (so the caches of the fast path serve), labels that look
// like numbers beside labels of the same length, members in any order, escapes, spacing,
// labels twice, big numbers. Seeded and bounded: the same rows every time, a few seconds.

const LABELS = [
  'City',
  'Score',
  '2024',
  'abcd',
  'wxyz',
  '10',
  '0',
  '01',
  '7',
  '4294967294',
  '4294967295',
  '-1',
  '1.5',
  'Region',
  'Region (regionA)',
  'Work email',
  '__proto__',
  'constructor',
  'fields',
  'ields"x',
  'say "hi"',
  'back\\slash',
  'é',
  '\u2028',
  'tab\t',
  'unresolvedFields',
  'id',
  '',
];
const KEYS = ['city', 'score', 'email', 'field_email', '_sdc_deleted_at', '__proto__', 'constructor', 'id', 'k1', 'k2'];
const VALUES = [
  '"x"',
  '"a\\"b"',
  '"\\u00e9\\n"',
  '""',
  '"}"',
  '"fields"',
  '7',
  '2024',
  '-0.10',
  '-1.50e+3',
  '9007199254740993',
  '12345678901234567890123456789',
  'true',
  'false',
  'null',
  '{"nested":[1,2]}',
];
const SPACINGS = [
  { colon: ':', comma: ',' },
  { colon: ': ', comma: ', ' },
  { colon: ':', comma: ',\n  ' },
];

type Json = Record<string, unknown>;

/** An own member, also one named `__proto__`. */
function put(obj: Json, name: string, value: unknown): void {
  Object.defineProperty(obj, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The record as the tap's contract says (docs/singer.md), from the row as JSON reads it. */
function expected(row: Json, propertyOf: ReadonlyMap<string, string>, excluded: ReadonlySet<string>): Json {
  const out: Json = {};
  let unresolved: Json | undefined;
  for (const member of Object.keys(row)) {
    const value = row[member];
    if (member !== 'fields' || value === null || typeof value !== 'object' || Array.isArray(value)) {
      put(out, member, value);
      continue;
    }
    for (const label of Object.keys(value)) {
      const property = propertyOf.get(label);
      const v = (value as Json)[label];
      if (property !== undefined && !Object.hasOwn(out, property)) put(out, property, v);
      else put((unresolved ??= {}), label, v);
    }
  }
  if (unresolved) put(out, 'unresolvedFields', unresolved);
  for (const name of excluded) delete out[name];
  return out;
}

/** The record's JSON text with every object's members sorted. */
function sorted(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return stringifyJson(value);
  const names = Object.keys(value).sort();
  return `{${names.map((n) => `${JSON.stringify(n)}:${sorted((value as Json)[n])}`).join(',')}}`;
}

/** A label as JSON text: as JSON.stringify writes it, or (sometimes) with a letter spelled as a \u escape. */
function quoted(label: string, random: () => number): string {
  const text = JSON.stringify(label);
  if (random() < 0.9 || !/[a-z]/.test(label)) return text;
  const i = text.search(/[a-z]/);
  return `${text.slice(0, i)}\\u00${text.charCodeAt(i).toString(16)}${text.slice(i + 1)}`;
}

describe('contacts RECORD: differential fuzz against the row as JSON reads it', () => {
  it('every generated row: the record equals the one made from the parsed row (seeded, bounded)', () => {
    const random = mulberry32(44);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const shuffle = <T>(xs: T[]): T[] => {
      for (let i = xs.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [xs[i], xs[j]] = [xs[j], xs[i]];
      }
      return xs;
    };
    let rows = 0;
    const write = vi.spyOn(RecordText.prototype, 'write');
    for (let run = 0; run < 50; run++) {
      const labels = shuffle([...LABELS]).slice(0, 3 + Math.floor(random() * 6));
      const keys = shuffle([...KEYS]);
      const defs: FieldDefinition[] = labels.map((label, i) => ({
        key: keys[i % keys.length] + (i >= keys.length ? String(i) : ''),
        label,
        objectType: 'CONTACT',
        dataType: 'STRING',
      }));
      // Sometimes a label two fields share: neither field's property gets its member.
      if (random() < 0.2) defs.push({ key: 'shared', label: defs[0].label, objectType: 'CONTACT', dataType: 'STRING' });
      const excluded = new Set(random() < 0.3 ? [pick(['unresolvedFields', 'email', fieldProperty(defs[0].key)])] : []);
      const fields = new ContactFields(defs, excluded);
      const propertyOf = new Map([...fieldKeys(defs).keyOf].map(([label, key]) => [label, fieldProperty(key)]));
      const shapes = [0, 1, 2].map(() => shuffle([...labels, pick(LABELS)]).slice(0, 2 + Math.floor(random() * 5)));
      for (let n = 0; n < 300; n++) {
        const { colon, comma } = pick(SPACINGS);
        const members = random() < 0.7 ? [...pick(shapes)] : shuffle([...pick(shapes)]);
        if (random() < 0.05) members.push(pick(members));
        const inner = members.map((l) => `${quoted(l, random)}${colon}${pick(VALUES)}`).join(comma);
        const head = [`"id"${colon}"c${n}"`];
        if (random() < 0.5) head.push(`"email"${colon}${pick(['null', '"e@x.io"'])}`);
        if (random() < 0.05) head.push(`${JSON.stringify(pick(['unresolvedFields', 'city', '2024']))}${colon}1`);
        const body = [...head, `"fields"${colon}{${inner}}`];
        if (random() < 0.05) body.push(`"updatedAt"${colon}"2025-01-01T00:00:00Z"`);
        const text = `{${body.join(comma)}}`;
        const row = JSON.parse(text) as Json;
        const record = fields.recordText(row, text);
        const want = expected(parseJson(text) as Json, propertyOf, excluded);
        const got = parseJson(record) as Json;
        // Values first (members sorted: a value under another property fails here), then the order.
        expect(sorted(got), `values, run ${run} row ${n}: ${text}`).toBe(sorted(want));
        expect(stringifyJson(got), `order, run ${run} row ${n}: ${text}`).toBe(stringifyJson(want));
        expect(record).not.toMatch(/[\r\n]/);
        rows++;
      }
    }
    expect(rows).toBe(15_000);
    // Many rows were written from their text, the path this fuzz is for.
    const fromText = write.mock.results.filter((r) => r.value !== undefined).length;
    expect(fromText).toBeGreaterThan(rows / 10);
    write.mockRestore();
  });
});
