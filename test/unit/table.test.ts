import { describe, expect, it } from 'vitest';
import { layoutTable } from '../../src/io/table.js';

describe('layoutTable', () => {
  const rows = [
    { id: 1, name: 'short', note: 'a fairly long note that will not fit' },
    { id: 22, name: 'a much longer name', note: null },
  ];

  it('lines up columns two spaces apart, with no trailing spaces and null as empty', () => {
    expect(layoutTable(['id', 'name', 'note'], rows)).toBe(
      'id  name                note\n' +
      '1   short               a fairly long note that will not fit\n' +
      '22  a much longer name\n',
    );
  });

  it('fits the width by narrowing the widest column first, with an ellipsis', () => {
    const out = layoutTable(['id', 'name', 'note'], rows, { width: 44 });
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(44);
    expect(lines[1]).toMatch(/^1 {3}short {2,}a fairly.*…$/);
    expect(lines[2]).toMatch(/^22  a much longer name$/);
  });

  it('cuts identifier columns last', () => {
    const out = layoutTable(['id', 'label'], [{ id: 'c4000000-0000-4000-8000-000000000001', label: 'a rather long label here' }], { width: 52 });
    expect(out.split('\n')[1]).toBe('c4000000-0000-4000-8000-000000000001  a rather long…');
  });

  it('never wraps: a tiny width still gives one line per row', () => {
    const out = layoutTable(['id', 'name', 'note'], rows, { width: 10 });
    expect(out.trimEnd().split('\n')).toHaveLength(3);
    for (const line of out.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(10);
  });

  it('counts wide characters as two columns, so a CJK or emoji value still fits', () => {
    const out = layoutTable(['name', 'n'], [{ name: '東京都渋谷区神南一丁目', n: 1 }, { name: 'ab', n: 2 }], { width: 12 });
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toBe('東京都渋…  1');
    expect(lines[2]).toBe(`ab${' '.repeat(9)}2`);
  });

  it('escapes control characters and line breaks from the server', () => {
    const out = layoutTable(['v'], [{ v: 'a\x1b[31mred\nnext' }]);
    expect(out).toBe('v\na\\x1b[31mred\\nnext\n');
  });

  it('paints only the fitted text, padding outside the colour', () => {
    const out = layoutTable(['status', 'x'], [{ status: 'ok', x: 1 }], { paint: (c, _v, t) => (c === 'status' ? `<${t}>` : t) });
    expect(out.split('\n')[1]).toBe('<ok>      1');
  });
});
