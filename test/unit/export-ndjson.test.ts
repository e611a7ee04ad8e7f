import { describe, expect, it } from 'vitest';
import { IdTable, type Skip } from '../../src/exporter/id-table.js';
import { savedForms } from '../../src/exporter/kinds.js';
import { contentHash, lanesHex } from '../../src/lib/content-hash.js';
import { keyedLaneB, keyedLanes } from '../../src/lib/keyed-hash.js';
import { BlockPool, pageFormat } from '../../src/exporter/page-format.js';
import { receiver } from '../../src/exporter/page-receiver.js';
import { JsonRowSplitter } from '../../src/lib/json-rows.js';

/** What a page skips: the identities saved (and the page before's rows, in memory). */
const skipOf = (saved: string[], recent?: IdTable): Skip => ({
  saved: new Set(saved),
  ...savedForms(saved),
  ...(recent ? { recent } : {}),
});

/** A page's NDJSON as the export makes it: the text split as it streams, rows through the receiver. */
async function ndjsonOf(text: string, chunk = 7, skip = skipOf([]), next: string | null = null) {
  const format = await pageFormat({ kind: 'contacts', format: 'ndjson', layout: null });
  const page = receiver(format, {
    kind: 'contacts',
    cursor: 'c1',
    skip,
    pool: new BlockPool(),
    limit: 5000,
    label: 'test',
  })();
  const splitter = new JsonRowSplitter(
    'contacts',
    (row, _i, rowText) => page.row(row, rowText),
    () => {
      throw new Error('not an object');
    },
  );
  for (let at = 0; at < text.length; at += chunk) splitter.write(text.slice(at, at + chunk));
  splitter.end();
  const got = page.end(next);
  return { lines: Buffer.concat(got.pieces).toString('utf8'), got };
}

/** A contact row's identity as the export saves it: id@updatedAt#k<hash of its content, fields named by key>. */
function identity(text: string): string {
  const row = JSON.parse(text) as { id: string; updatedAt: string };
  const a = keyedLanes(text, undefined);
  return `${row.id}@${row.updatedAt}#k${lanesHex(a, keyedLaneB)}`;
}

const doc = (rows: string[]) => `{"data":{"contacts":[${rows.join(',')}]},"pagination":{"nextCursor":null}}`;

describe('NDJSON lines: each row exactly as the API sent it', () => {
  it('numbers, escapes and member order as sent (not parsed and printed again)', async () => {
    const rows = [
      '{"id":"a","updatedAt":"t","big":12345678901234567890,"b":1,"2":"two","x":1.50}',
      '{"id":"b","updatedAt":"t","name":"caf\\u00e9 \\/ \\"q\\"","n":1e2}',
      '{"id":"c","updatedAt":"t","n":-0}',
      '{"id":"d","updatedAt":"t","fields":{"Score":0}}',
    ];
    for (const chunk of [1, 7, 4096])
      expect((await ndjsonOf(doc(rows), chunk)).lines).toBe(rows.map((r) => r + '\n').join(''));
  });

  it('a row spread over lines is written on one line; Python spacing is kept', async () => {
    const pretty = JSON.stringify({ id: 'a', updatedAt: 't', tags: ['x y', 'z'] }, null, 2);
    const spaced = '{"id": "b", "updatedAt": "t"}';
    const { lines } = await ndjsonOf(doc([pretty, spaced, spaced.replace('"b"', '"c"')]));
    expect(lines).toBe(
      '{"id":"a","updatedAt":"t","tags":["x y","z"]}\n{"id": "b", "updatedAt": "t"}\n{"id": "c", "updatedAt": "t"}\n',
    );
  });

  it('a row twice in the page, or delivered before, is written once (ids read from the parsed row)', async () => {
    // A contact's identity is id@updatedAt and its content's hash, millisecond time or not.
    const at = '2026-01-02T03:04:05.678Z';
    const row = (id: string, n = 1) => `{"id":"${id}","updatedAt":"${at}","n":${n}}`;
    const skip = skipOf([identity(row('s'))]);
    const { lines, got } = await ndjsonOf(doc([row('a'), row('b'), row('a'), row('s'), row('c'), row('b')]), 9, skip);
    expect(lines).toBe([row('a'), row('b'), row('c')].map((r) => r + '\n').join(''));
    expect([got.rows, got.fresh, got.repeated, [...got.hits]]).toEqual([6, 3, 2, [identity(row('s'))]]);
    expect([...got.freshIds!]).toEqual(['a', 'b', 'c'].map((id) => identity(row(id))));
    // A page whose cursor moves on saves no identity: none is made in the form saved.
    const moved = await ndjsonOf(doc([row('a'), row('b')]), 9, skip, 'c2');
    expect(moved.got.freshIds).toBeUndefined();
    // The next page is compared with it in memory: a row sent again is left out, said in the form saved.
    const next = await ndjsonOf(doc([row('b'), row('d')]), 9, skipOf([], moved.got.recent as IdTable));
    expect([next.lines, [...next.got.hits], [...next.got.freshIds!]]).toEqual([
      row('d') + '\n',
      [identity(row('b'))],
      [identity(row('d'))],
    ]);
  });

  it('a second version with the same id and millisecond updatedAt but other values is written; a state of before skips the version', async () => {
    const at = '2026-01-02T03:04:05.678Z';
    const row = (id: string, n: number) => `{"id":"${id}","updatedAt":"${at}","n":${n}}`;
    const skip = skipOf([identity(row('a', 1))]);
    const { lines, got } = await ndjsonOf(doc([row('a', 1), row('a', 2), row('a', 2)]), 5, skip);
    expect(lines).toBe(row('a', 2) + '\n');
    expect([got.fresh, got.repeated, got.hits.size]).toEqual([1, 1, 1]);
    // Saved without a content hash (a cnv before it): that version is skipped, whatever its content,
    // and said to be saved in the form of now.
    const versioned = await ndjsonOf(doc([row('a', 3)]), 5, skipOf([`a@${at}`]));
    expect(versioned.lines).toBe('');
    expect([...versioned.got.renamed!]).toEqual([[`a@${at}`, identity(row('a', 3))]]);
  });

  it('a state saved with hashes of the row text (before key-named content) skips the same text, and renames it', async () => {
    const at = '2026-01-02T03:04:05.678Z';
    const row = (id: string, city: string) => `{"id":"${id}","updatedAt":"${at}","fields":{"City":"${city}"}}`;
    const texts = new Set([`a@${at}#${contentHash(row('a', 'Oslo'))}`]);
    const { lines, got } = await ndjsonOf(doc([row('a', 'Oslo'), row('a', 'Bergen')]), 5, skipOf([...texts]));
    expect(lines).toBe(row('a', 'Bergen') + '\n');
    expect([...got.hits]).toEqual([...texts]);
    expect([...got.renamed!]).toEqual([[[...texts][0], identity(row('a', 'Oslo'))]]);
  });
});
