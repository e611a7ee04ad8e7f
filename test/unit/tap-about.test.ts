import { describe, expect, it } from 'vitest';
import { aboutMarkdown } from '../../src/singer/singer-about.js';
import { aboutDocument } from '../../src/tap/about.js';
import { SETTINGS } from '../../src/tap/config.js';
import { STREAM_NAMES } from '../../src/tap/stream-table.js';

// --about lists what the tap does, and only that: the settings its config reads, its streams.
describe('the --about document', () => {
  it('lists exactly the settings the config reads, and every stream', () => {
    const about = aboutDocument('1.2.3');
    expect(Object.keys((about.settings as { properties: object }).properties).sort()).toEqual([...SETTINGS].sort());
    expect(about.streams).toEqual([...STREAM_NAMES]);
  });

  it('as markdown: a row per setting, a | in a description escaped', () => {
    const text = aboutMarkdown(aboutDocument('1.2.3'));
    const rows = text.split('\n').filter((line) => /^\| [a-z_]+ \| False \|/.test(line));
    expect(rows.map((row) => row.split(' | ')[0].slice(2)).sort()).toEqual([...SETTINGS].sort());
    expect(rows.every((row) => row.split(/(?<!\\)\|/).length === 6)).toBe(true);
  });
});
