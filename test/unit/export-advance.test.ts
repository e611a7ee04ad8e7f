import { describe, expect, it } from 'vitest';
import { advance, MAX_SEEN } from '../../src/exporter/advance.js';
import { CursorTrail } from '../../src/lib/cursor-trail.js';

// The pure step of the protocol: where a page leaves the position, whatever the server sent.
const step = (
  cursor: string | null,
  saved: string[],
  nextCursor: string | null,
  hits: string[],
  fresh: string[],
  visited = new CursorTrail(cursor),
) =>
  advance(
    { cursor, saved: new Set(saved), visited, label: 'export contacts' },
    { nextCursor, hits: new Set(hits), fresh: new Set(fresh), recent: new Set([...hits, ...fresh]) },
  );

describe('advance(position, page)', () => {
  it("a moved cursor keeps only the saved rows not met yet; the next page also skips this page's rows", () => {
    const s = step('c1', ['x', 'y'], 'c2', ['x'], ['a', 'b']);
    expect(s).toMatchObject({ last: false, moved: true, seen: ['y'], again: [] });
    expect([...s.nextSkip.saved]).toEqual(['y']);
    expect([...s.nextSkip.recent!].sort()).toEqual(['a', 'b', 'x']);
  });

  it('a page whose identities are saved must bring them (the form saved)', () => {
    const page = { nextCursor: null, hits: new Set<string>(), recent: new Set(['a']) };
    const position = {
      cursor: 'c1',
      saved: new Set<string>(),
      visited: new CursorTrail('c1'),
      label: 'export contacts',
    };
    expect(() => advance(position, page)).toThrow(/came without them/);
  });

  it('a null cursor: exactly the rows of that page (they come again from the saved cursor)', () => {
    expect(step('c1', ['x', 'gone'], null, ['x'], ['a'])).toMatchObject({ last: true, moved: false, seen: ['x', 'a'] });
  });

  it('the cursor handed back: everything delivered from it, then a refusal past the cap', () => {
    expect(step('c1', ['x'], 'c1', ['x'], ['a'])).toMatchObject({ moved: false, last: false, seen: ['x', 'a'] });
    const many = Array.from({ length: MAX_SEEN }, (_, i) => `r${i}`);
    expect(() => step('c1', many, 'c1', [], ['one-more'])).toThrow(/20001 distinct rows from it, more than the 20000/);
  });

  it('rows repeated from the page before are named; a cursor seen before in the run is a cycle', () => {
    expect(step('c2', [], null, ['b'], ['c']).again).toEqual(['b']);
    expect(() => step('c2', [], 'c1', [], ['c'], new CursorTrail(null, 'c1', 'c2'))).toThrow(/a cycle/);
  });
});
