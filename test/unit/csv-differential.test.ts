import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CSV_QUOTED_MATCH, csvFormatter } from '../../src/output/csv-line.js';
import { CsvParser, type CsvRecord } from '../../src/input/csv-parser.js';

// cnv's CSV writer and reader are small in-house modules, written for speed (docs/performance.md);
// these tests hold them to the libraries they replaced, on random input.

function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32;
}

function randomRows(r: () => number, pieces: string[]): string[][] {
  const width = 1 + Math.floor(r() * 5);
  return Array.from({ length: 1 + Math.floor(r() * 30) }, () =>
    Array.from({ length: width }, (_, col) => {
      let cell = col === 0 ? 'k' : ''; // a first cell never empty: no record is a blank line
      for (let n = Math.floor(r() * 6); n > 0; n--) cell += pieces[Math.floor(r() * pieces.length)];
      return cell;
    }),
  );
}

describe('CSV formatting (src/output/csv-line.ts) against csv-stringify', () => {
  it('writes the same text on 2,000 random tables, with LF and CRLF record ends', async () => {
    const pieces = ['a', 'Zoë', ',', '"', '""', '\n', '\r', '\r\n', ' ', '😀', '\u2028', ';', "'"];
    for (let seed = 1; seed <= 2000; seed++) {
      const r = rng(seed);
      const rows = randomRows(r, pieces);
      const end = r() < 0.5 ? '\n' : '\r\n';
      const expected = stringify(rows, {
        record_delimiter: end === '\n' ? 'unix' : 'windows',
        quoted_match: CSV_QUOTED_MATCH,
      });
      expect((await csvFormatter(end))(rows), `seed ${seed}`).toBe(expected);
    }
  });
});

describe('CSV reading (src/input/csv-parser.ts) against csv-parse', () => {
  it('reads the same records, with the line each starts on, however the text is cut (LF, CRLF and CR-only files)', () => {
    const pieces = ['a', 'Zoë', ',', '"', '\n', ' ', '😀', ';'];
    for (let seed = 1; seed <= 2000; seed++) {
      const r = rng(seed);
      const rows = randomRows(r, pieces);
      const ends = r();
      const delimiter = ends < 0.4 ? 'windows' : ends < 0.8 ? 'unix' : 'mac';
      let text =
        (r() < 0.2 ? '\uFEFF' : '') + stringify(rows, { record_delimiter: delimiter, quoted_match: CSV_QUOTED_MATCH });
      if (r() < 0.3) text = text.replace(/(\r\n|\r|\n)$/, ''); // no line end after the last record
      const theirs = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, info: true }) as Array<{
        record: string[];
        info: { lines: number };
      }>;
      const parser = new CsvParser();
      const ours: CsvRecord[] = [];
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(r() * 40);
        parser.push(text.slice(at, at + size), ours);
        at += size;
      }
      parser.end(ours);
      expect(
        ours.map((rec) => rec.fields),
        `seed ${seed}`,
      ).toEqual(theirs.map((t) => t.record));
      expect(ours.every((rec) => rec.error === undefined)).toBe(true);
      // A record starts on the line after the previous one ended (csv-parse counts where each ends).
      // (In a CR-only file cnv counts CRs as lines; csv-parse also counts an LF inside a value.)
      if (delimiter !== 'mac')
        expect(
          ours.map((rec) => rec.line),
          `seed ${seed}`,
        ).toEqual(theirs.map((_, i) => (i === 0 ? 1 : theirs[i - 1].info.lines + 1)));
    }
  });
});
