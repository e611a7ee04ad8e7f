import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/exports.md "Reading the files" claims only what test/readers/check-readers.mjs checks
// (`npm run readers`, which needs the readers installed): each reader row has a check there,
// each check a row, and each row names the version it was checked with.
const root = resolve(import.meta.dirname, '../..');
const guide = readFileSync(resolve(root, 'docs/exports.md'), 'utf8');
const section = guide.slice(
  guide.indexOf('## Reading the files'),
  guide.indexOf('\n## ', guide.indexOf('## Reading the files') + 5),
);
const script = readFileSync(resolve(root, 'test/readers/check-readers.mjs'), 'utf8');

describe('the reader guide and its checks', () => {
  it('names the script, and every reader row is one the script checks, with a version', () => {
    expect(section).toContain('test/readers/check-readers.mjs');
    const checked = [...script.matchAll(/^ {4}name: '([^']+)',$/gm)].map((m) => m[1]);
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| reader ') && !l.startsWith('|---'))
      .map((l) => l.split(' | ')[0].slice(2));
    expect(rows.map((r) => r.replace(/ \d+(\.\d+)+$/, '')).sort()).toEqual([...checked].sort());
    for (const row of rows) expect(row, row).toMatch(/ \d+(\.\d+)+$/);
  });
});
