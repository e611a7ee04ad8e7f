import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Lines of src/ stay under 130 characters: long messages are built from named parts, long prose
// is concatenated, comments wrap (prettier's printWidth is 120, but it never breaks a string). A
// few lines may stay longer where a text cannot be cut (a URL, a fixed text): at most MAX_LONG.
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const LIMIT = 130;
const MAX_LONG = 60;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `file:line (length)` of each line of the text longer than LIMIT characters (code points). */
function longLines(file: string, text: string): string[] {
  return text.split(/\r?\n/).flatMap((line, i) => {
    const length = [...line].length;
    return length > LIMIT ? [`${file}:${i + 1} (${length})`] : [];
  });
}

describe(`lines of src/ under ${LIMIT} characters`, () => {
  it(`at most ${MAX_LONG} lines of src/**/*.ts are longer`, () => {
    const sources = files(SRC);
    expect(sources.length).toBeGreaterThan(300);
    const long = sources.flatMap((f) => longLines(relative(ROOT, f), readFileSync(f, 'utf8')));
    const list = long.join('\n');
    expect(
      long.length,
      `${long.length} lines over ${LIMIT} characters (at most ${MAX_LONG}):\n${list}`,
    ).toBeLessThanOrEqual(MAX_LONG);
  });

  it('the count sees a long line, in characters and not bytes, with its file and line', () => {
    const text = ['short', 'x'.repeat(LIMIT), 'y'.repeat(LIMIT + 1), 'é'.repeat(LIMIT), 'z'.repeat(LIMIT + 5)].join(
      '\r\n',
    );
    expect(longLines('src/a.ts', text)).toEqual([`src/a.ts:3 (${LIMIT + 1})`, `src/a.ts:5 (${LIMIT + 5})`]);
  });
});
