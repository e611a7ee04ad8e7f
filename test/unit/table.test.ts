import { describe, expect, it } from 'vitest';
import { displayWidth, layoutTable } from '../../src/output/table.js';

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
    const out = layoutTable(
      ['id', 'label'],
      [{ id: 'c4000000-0000-4000-8000-000000000001', label: 'a rather long label here' }],
      { width: 52 },
    );
    expect(out.split('\n')[1]).toBe('c4000000-0000-4000-8000-000000000001  a rather long…');
  });

  it('wrap: a column named to wrap breaks at spaces onto more lines, gives way first, and keeps every word', () => {
    const rows = [{ check: 'api', status: 'ok', detail: 'the key was accepted; the campaign list has the shape' }];
    const out = layoutTable(['check', 'status', 'detail'], rows, { width: 40, wrap: ['detail'] });
    expect(out).toBe(
      [
        'check  status  detail',
        'api    ok      the key was accepted; the',
        '               campaign list has the',
        '               shape',
        '',
      ].join('\n'),
    );
    // A word longer than the column is broken where the line ends, as it must be.
    const long = layoutTable(['detail'], [{ detail: 'x'.repeat(45) }], { width: 20, wrap: ['detail'] });
    expect(long.split('\n').slice(1, 4)).toEqual(['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
  });

  it('never wraps: a tiny width still gives one line per row', () => {
    const out = layoutTable(['id', 'name', 'note'], rows, { width: 10 });
    expect(out.trimEnd().split('\n')).toHaveLength(3);
    for (const line of out.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(10);
  });

  it('counts wide characters as two columns, so a CJK or emoji value still fits', () => {
    const out = layoutTable(
      ['name', 'n'],
      [
        { name: '東京都渋谷区神南一丁目', n: 1 },
        { name: 'ab', n: 2 },
      ],
      { width: 12 },
    );
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toBe('東京都渋…  1');
    expect(lines[2]).toBe(`ab${' '.repeat(9)}2`);
  });

  it('escapes control characters and line breaks from the server', () => {
    const out = layoutTable(['v'], [{ v: 'a\x1b[31mred\nnext' }]);
    expect(out).toBe('v\na\\x1b[31mred\\nnext\n');
  });

  it('paints only the fitted text, padding outside the colour', () => {
    const out = layoutTable(['status', 'x'], [{ status: 'ok', x: 1 }], {
      paint: (c, _v, t) => (c === 'status' ? `<${t}>` : t),
    });
    expect(out.split('\n')[1]).toBe('<ok>      1');
  });

  it('lines up a column whose values hold emoji sequences, marks and East Asian text', () => {
    const names = ['👨‍👩‍👧 family', 'Zoë', '東京', 'ok ✅', 'e\u0301clair'];
    const out = layoutTable(
      ['name', 'n'],
      names.map((name, n) => ({ name, n })),
    );
    const columnOfN = out
      .trimEnd()
      .split('\n')
      .map((line) => displayWidth(line.slice(0, line.lastIndexOf(' ') + 1)));
    expect(new Set(columnOfN).size).toBe(1);
  });

  it('a cut never splits a cluster: a ZWJ sequence or a skin tone stays whole or goes whole', () => {
    const out = layoutTable(['v'], [{ v: '👨‍👩‍👧👍🏽👍🏽' }], { width: 5, heading: false });
    expect(out).toBe('👨‍👩‍👧👍🏽…\n');
    expect(layoutTable(['v'], [{ v: '👨‍👩‍👧👍🏽👍🏽' }], { width: 4, heading: false })).toBe('👨‍👩‍👧…\n');
  });
});

// The widths a terminal gives, measured with string-width (src/output/table.ts). cnv's own ranges
// before (a regex of wide blocks and zero-width marks, one code point at a time) gave what the
// last column says: a table with such values was misaligned or ran past the screen's edge.
describe('display width by string-width, where the hand-written ranges were wrong', () => {
  const cases: Array<[string, string, number, number]> = [
    ['thumbs up with a skin tone (modifier)', '👍🏽', 2, 4],
    ['a family (ZWJ sequence)', '👨‍👩‍👧', 2, 6],
    ['rainbow flag (VS16 + ZWJ)', '🏳️‍🌈', 2, 4],
    ['red heart with VS16 (emoji presentation)', '❤️', 2, 1],
    ['watch U+231A (emoji presentation by default)', '⌚', 2, 1],
    ['hourglass U+23F3', '⏳', 2, 1],
    ['check mark button U+2705', '✅', 2, 1],
    ['ballet shoes U+1FA70 (a newer emoji block)', '🩰', 2, 1],
    ['Thai letter with a tone mark (nonspacing)', 'ก่', 1, 2],
    ['Hangul jamo L+V (one syllable block)', '\u1100\u1161', 2, 3],
    ['word joiner U+2060 (invisible)', 'a\u2060b', 2, 3],
  ];
  for (const [name, text, width, before] of cases) {
    it(`${name}: ${width} columns (the ranges said ${before})`, () => {
      expect(displayWidth(text)).toBe(width);
    });
  }

  it('and where both agree: CJK, halfwidth kana, combining accents, flags, plain text', () => {
    expect(['東京', 'ｱ', 'e\u0301', '🇫🇷', 'plain text'].map(displayWidth)).toEqual([4, 1, 1, 2, 10]);
  });
});
