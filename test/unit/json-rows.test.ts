import { describe, expect, it, vi } from 'vitest';
import { JsonRowSplitter, JsonSyntaxError } from '../../src/lib/json-rows.js';

/** Feeds `text` in pieces cut at the given sizes (cycled) and returns rows and the rest. */
function split(text: string, member: string, sizes: number[] = [text.length]) {
  const rows: unknown[] = [];
  const indexes: number[] = [];
  const texts: string[] = [];
  const splitter = new JsonRowSplitter(
    member,
    (row, i, rowText) => {
      rows.push(row);
      indexes.push(i);
      texts.push(rowText);
    },
    (i) => {
      throw new Error(`element ${i} is not an object`);
    },
  );
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = Math.max(1, sizes[k % sizes.length]);
    splitter.write(text.slice(at, at + size));
    at += size;
  }
  return { rows, indexes, texts, rest: splitter.end() };
}

// A deterministic generator, so a failure names a seed that reproduces it.
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32;
}

const NASTY = ['"', '\\', '\\"', '{', '}', '[', ']', ',', ':', '\n', 'é', '😀', '\u2028', ' ', 'data', 'contacts'];

function randomString(r: () => number): string {
  let s = '';
  const n = Math.floor(r() * 8);
  for (let i = 0; i < n; i++)
    s += r() < 0.5 ? NASTY[Math.floor(r() * NASTY.length)] : String.fromCharCode(97 + Math.floor(r() * 26));
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const t = r();
  if (depth > 2 || t < 0.35) return randomString(r);
  if (t < 0.45) return Math.floor(r() * 1e6) / 100;
  if (t < 0.5) return r() < 0.5 ? null : r() < 0.5;
  if (t < 0.75) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(r() * 4) }, () => [randomString(r), randomValue(r, depth + 1)]),
  );
}

describe('JsonRowSplitter (rows of data.<member> as the answer streams)', () => {
  it('hands each row over and keeps the rest of the document with the array emptied', () => {
    const doc = {
      data: { contacts: [{ id: 'a', fields: { x: '}' } }, { id: 'b' }], total: 2 },
      pagination: { nextCursor: 'c1' },
    };
    const { rows, indexes, rest } = split(JSON.stringify(doc, null, 2), 'contacts', [1]);
    expect(rows).toEqual(doc.data.contacts);
    expect(indexes).toEqual([0, 1]);
    expect(rest).toEqual({ data: { contacts: [], total: 2 }, pagination: { nextCursor: 'c1' } });
  });

  it('finds the array wherever its members are in the document, and only at data.<member>', () => {
    const text =
      '{"contacts":[{"id":"top"}],"pagination":{"nextCursor":null},"data":{"x":{"contacts":[{"id":"deep"}]},"contacts":[]}}';
    const { rows, rest } = split(text, 'contacts', [3, 7]);
    expect(rows).toEqual([]);
    expect(rest).toEqual(JSON.parse(text));
  });

  it('gives the same rows and rest as JSON.parse, whatever the chunking, on random documents', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const rows = Array.from({ length: Math.floor(r() * 6) }, () => ({
        [randomString(r)]: randomValue(r, 0),
        eventId: randomString(r),
        nested: randomValue(r, 1),
      }));
      const doc: Record<string, unknown> = {
        [randomString(r) + 'k']: randomValue(r, 1),
        data: { [randomString(r) + 'm']: randomValue(r, 1), events: rows },
        pagination: { nextCursor: r() < 0.5 ? null : randomString(r) },
      };
      const text = JSON.stringify(doc, null, r() < 0.5 ? 0 : 1);
      const sizes = Array.from({ length: 5 }, () => 1 + Math.floor(r() * 12));
      const got = split(text, 'events', sizes);
      expect(got.rows, `seed ${seed}`).toEqual(rows);
      // Each row's text as it stands in the document, whichever path read it.
      expect(
        got.texts.map((t) => JSON.parse(t)),
        `seed ${seed}`,
      ).toEqual(rows);
      let at = 0;
      for (const t of got.texts) {
        const found = text.indexOf(t, at);
        expect(found, `seed ${seed}`).toBeGreaterThanOrEqual(at);
        at = found + t.length;
      }
      const expected = JSON.parse(text) as { data: Record<string, unknown> };
      expected.data.events = [];
      expect(got.rest, `seed ${seed}`).toEqual(expected);
    }
  });

  it('takes many rows per parse when they start alike, and is not fooled by look-alike boundaries', () => {
    // Rows that nest arrays of objects starting like a row, and strings holding the boundary text.
    const rows = Array.from({ length: 400 }, (_, i) => ({
      id: `r${i}`,
      note: i % 3 === 0 ? 'a "},{"id":" inside a string \\' : 'plain',
      list: i % 5 === 0 ? [{ id: 'n1' }, { id: 'n2', deeper: [{ id: 'n3' }, { id: 'n4' }] }] : [],
    }));
    const text = JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: null } });
    for (const sizes of [[text.length], [65536], [4096, 333], [17]]) {
      const got = split(text, 'contacts', sizes);
      expect(got.rows, String(sizes)).toEqual(rows);
      expect(got.indexes).toEqual(rows.map((_, i) => i));
      expect(got.texts).toEqual(rows.map((r) => JSON.stringify(r)));
    }
  });

  it('reads rows that start alike without the character scan: each row found by indexOf, one JSON.parse a row', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `r${i}`, n: i }));
    const text = JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: 'c' } });
    const parse = vi.spyOn(JSON, 'parse');
    const charAt = vi.spyOn(String.prototype, 'charCodeAt');
    try {
      const got = split(text, 'contacts', [8192]);
      expect(got.rows).toEqual(rows);
      expect(got.texts).toEqual(rows.map((r) => JSON.stringify(r)));
      // One parse a row, and a few for what the scan read and the skeleton: none parsed twice.
      expect(parse.mock.calls.length).toBeLessThan(rows.length + 10);
      // The scan reads about one row a chunk (the one cut by its end), not every character.
      expect(charAt.mock.calls.length).toBeLessThan(text.length / 20);
    } finally {
      parse.mockRestore();
      charAt.mockRestore();
    }
  });

  it('rows with nothing alike, pretty-printed, or an element that is not an object, whichever path reads them', () => {
    const mixed = [{ a: 1 }, { id: 'x' }, { id: 'y' }, { b: [{ id: 'z' }] }, { id: 'w' }];
    expect(split(JSON.stringify({ data: { events: mixed } }), 'events', [7]).rows).toEqual(mixed);
    expect(split(JSON.stringify({ data: { events: mixed } }, null, 3), 'events', [5]).rows).toEqual(mixed);
    const text = JSON.stringify({ data: { events: [{ id: 'a' }, { id: 'b' }, 3, { id: 'c' }] } });
    expect(() => split(text, 'events')).toThrow('element 2 is not an object');
  });

  it('rows split by ",\\n" after a compact first row: right rows, at most two boundary searches per chunk', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, n: i }));
    const text = '{"data":{"contacts":[' + rows.map((r) => JSON.stringify(r)).join(',\n') + ']}}';
    const search = vi.spyOn(String.prototype, 'lastIndexOf');
    try {
      expect(split(text, 'contacts', [4096]).rows).toEqual(rows);
      expect(search.mock.calls.length).toBeLessThanOrEqual(2 * Math.ceil(text.length / 4096) + 2);
    } finally {
      search.mockRestore();
    }
  });

  it('learns the text between rows: Python json.dumps spacing and pretty-printed pages take the bulk path too', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      id: `r${i}`,
      n: i,
      tags: i % 7 === 0 ? [{ id: 'x' }, { id: 'y' }] : [],
    }));
    const pythonic =
      '{"data": {"contacts": [' +
      rows.map((r) => JSON.stringify(r).replace(/,"/g, ', "').replace(/":/g, '": ')).join(', ') +
      ']}, "pagination": {"nextCursor": null}}';
    const pretty = JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: null } }, null, 2);
    for (const text of [pythonic, pretty]) {
      expect(JSON.parse(text).data.contacts).toEqual(rows);
      const charAt = vi.spyOn(String.prototype, 'charCodeAt');
      try {
        const got = split(text, 'contacts', [8192]);
        expect(got.rows).toEqual(rows);
        expect(got.indexes).toEqual(rows.map((_, i) => i));
        // The rows' own texts, their spacing kept.
        expect(text).toContain(got.texts.join(text === pretty ? ',\n      ' : ', '));
        expect(charAt.mock.calls.length).toBeLessThan(text.length / 10);
      } finally {
        charAt.mockRestore();
      }
    }
    // Gaps that change after the first two rows still read right, row by row.
    const uneven = '{"data":{"contacts":[{"id":"a"}, {"id":"b"},{"id":"c"} ,\n {"id":"d"}, {"id":"e"}]}}';
    for (const sizes of [[uneven.length], [1], [5, 3]])
      expect(split(uneven, 'contacts', sizes).rows.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('skips a byte order mark before the document', () => {
    expect(split('\uFEFF{"data":{"contacts":[{"id":"a"}]}}', 'contacts', [1]).rows).toEqual([{ id: 'a' }]);
  });

  it('refuses text that is not JSON, or ends early', () => {
    const bad = [
      '{"data":{"contacts":[{"id":"a"}',
      '{"data":{"contacts":[{"id":"a"} {"id":"b"}]}}',
      '{"data":{"contacts":[{"id":"a"}]}} trailing',
      '{"data":{"contacts":[{"id":"a",}]}}',
      '{"data":{"contacts":[{"id":"a"}]]}',
      '{"data":{"contacts":[{"id":"unterminated}]}}',
      '{"bad\\q":1,"data":{"contacts":[]}}',
      '{"data":{"contacts":[{"id":"a"}],"contacts":[{"id":"b"}]}}',
      '',
    ];
    for (const text of bad) expect(() => split(text, 'contacts', [2]), text).toThrow(JsonSyntaxError);
  });

  it('reports an element that is not an object, with its index', () => {
    expect(() => split('{"data":{"contacts":[{"id":"a"},"b"]}}', 'contacts')).toThrow('element 1 is not an object');
  });

  it('a row longer than many chunks (escapes and runs of backslashes cut anywhere) is read whole, its text exact', () => {
    // Past the piece size (256 Ki characters), so the row is kept in pieces between chunks.
    const note = Array.from({ length: 120_000 }, (_, k) =>
      k % 7 === 0 ? 'q\\"\\\\' : k % 5 === 0 ? '\\\\\\' : 'abcdefgh',
    ).join('');
    expect(note).toContain('\\\\\\');
    const rows = [
      { id: 'a', note },
      { id: 'b', note: 'short' },
    ];
    const text = JSON.stringify({ data: { contacts: rows }, pagination: { nextCursor: null } });
    for (const sizes of [[65_536], [1_000, 7, 33_333], [4097]]) {
      const got = split(text, 'contacts', sizes);
      expect(got.rows, `pieces of ${sizes}`).toEqual(rows);
      expect(got.texts).toEqual(rows.map((r) => JSON.stringify(r)));
    }
  });

  it('a row past the limit stops once the limit is read, whatever the chunking; the document around the rows has its own limit', () => {
    const big = (n: number) => `{"data":{"contacts":[{"id":"a","note":"${'x'.repeat(n)}"}]}}`;
    const splitter = (around: number) =>
      new JsonRowSplitter(
        'contacts',
        () => {},
        () => {
          throw new Error('not an object');
        },
        { maxHeld: 1_000_000, maxAround: around },
      );
    for (const size of [65_536, 300_000]) {
      const s = splitter(1_000);
      const text = big(2_000_000);
      let read = 0;
      expect(() => {
        for (; read < text.length; read += size) s.write(text.slice(read, read + size));
      }).toThrow('row 0 of data.contacts is larger than 1,000,000 bytes');
      expect(read).toBeLessThan(1_000_000 + 2 * size);
    }
    // An endless string there (a cursor), and members around the rows past the limit.
    expect(() => splitter(1_000).write(`{"pagination":{"nextCursor":"${'c'.repeat(5_000)}`)).toThrow(
      'a value is larger than 1,000 bytes',
    );
    expect(() =>
      splitter(1_000).write(`{"pagination":{"nextCursor":"${'c'.repeat(5_000)}"},"data":{"contacts":[]}}`),
    ).toThrow('the members around data.contacts are larger than 1,000 bytes');
  });
});
