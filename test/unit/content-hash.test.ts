import { describe, expect, it } from 'vitest';
import { contentHash, contentLanes, laneB, lanesHex } from '../../src/lib/content-hash.js';

describe('contentHash (a row version told apart by its text)', () => {
  it('is the hash states saved before (charCodeAt, two units a step), for any length and text, past the copy buffer too', () => {
    // Each value as the implementation before the copied-units fast path gave it.
    const cases: Array<[string, string]> = [
      ['', '5db4a501f436ad32'],
      ['a', '579640c7bdbfa9a0'],
      ['abcde', 'c99d6f2630b26a8c'],
      ['é€😀x', 'e04147bb71012e34'],
      ['{"id":"c1","fields":{"City":"Zürich"}}', '1f360d9ddd47d112'],
      ['x'.repeat(40_000), 'fcce0a25c1ed5ca3'],
      [`${'y'.repeat(70_001)}😀`, '9e3787a1d2975a94'],
    ];
    for (const [text, hash] of cases) expect(contentHash(text), text.slice(0, 20)).toBe(hash);
  });

  it('lanes as numbers: the same text the same lanes; a change in one place other lanes', () => {
    const a1 = contentLanes('{"id":"c1","n":1}');
    const b1 = laneB;
    expect([contentLanes('{"id":"c1","n":1}'), laneB]).toEqual([a1, b1]);
    expect(lanesHex(contentLanes('{"id":"c1","n":2}'), laneB)).not.toBe(lanesHex(a1, b1));
  });
});
