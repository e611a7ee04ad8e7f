import { describe, expect, it } from 'vitest';
import { lanesHex } from '../../src/lib/content-hash.js';
import { MemberKeys } from '../../src/lib/member-keys.js';
import { keyedLaneB, keyedLanes } from '../../src/lib/keyed-hash.js';

// A contact row's content hash with its fields named by key: a relabel (the same values under
// other labels) hashes alike, any other change does not.

const hash = (text: string, names?: MemberKeys) => lanesHex(keyedLanes(text, names), keyedLaneB);
const names = (labels: Record<string, string>) => new MemberKeys(Object.entries(labels));
const row = (fields: string, rest = '"email":"a@example.com"') =>
  `{"id":"c1",${rest},"updatedAt":"2025-01-01T00:00:00Z","fields":{${fields}}}`;

describe('keyedLanes (a row version told apart by its content, fields by key)', () => {
  const before = names({ City: 'city', 'Last name': 'lastName' });
  const after = names({ Town: 'city', Surname: 'lastName' });

  it('the same values under other labels hash alike; another value, member or field does not', () => {
    const base = hash(row('"City":"Oslo","Last name":"Byron"'), before);
    expect(hash(row('"Town":"Oslo","Surname":"Byron"'), after)).toBe(base);
    expect(hash(row('"Surname":"Byron","Town":"Oslo"'), after)).toBe(base); // members in another order
    expect(hash(row('"Town":"Bergen","Surname":"Byron"'), after)).not.toBe(base);
    expect(hash(row('"Town":"Oslo"'), after)).not.toBe(base);
    expect(hash(row('"Town":"Byron","Surname":"Oslo"'), after)).not.toBe(base); // values swapped between fields
    expect(hash(row('"City":"Oslo","Last name":"Byron"', '"email":"b@example.com"'), before)).not.toBe(base);
    // A name no field has counts by itself: never as a key, and a relabel of it is a change.
    expect(hash(row('"city":"Oslo","Last name":"Byron"'), before)).not.toBe(base);
    expect(hash(row('"City":"Oslo","Last name":"Byron"'))).not.toBe(hash(row('"Town":"Oslo","Surname":"Byron"')));
  });

  it('fields before other members: a relabel of any length (odd or even) hashes alike', () => {
    const first = (fields: string) =>
      `{"id":"c1","fields":{${fields}},"email":"a@example.com","updatedAt":"2025-01-01T00:00:00Z"}`;
    const base = hash(first('"City":"Oslo","Last name":"Byron"'), before);
    for (const [city, last] of [
      ['Town', 'Surname'],
      ['Town2', 'Surname'],
      ['T', 'Family name'],
      ['Home town', 'X'],
    ]) {
      const relabelled = names({ [city]: 'city', [last]: 'lastName' });
      expect(hash(first(`"${city}":"Oslo","${last}":"Byron"`), relabelled), `${city}, ${last}`).toBe(base);
    }
    expect(hash(first('"City":"Oslo","Last name":"Byron"').replace('a@', 'b@'), before)).not.toBe(base);
  });

  it('values are their text as sent: every digit of a number, a string and a number apart', () => {
    const n = (v: string) => hash(row(`"Score":${v}`), names({ Score: 'score' }));
    expect(n('9007199254740993')).not.toBe(n('9007199254740992'));
    expect(n('1')).not.toBe(n('"1"'));
    expect(n('null')).not.toBe(n('"null"'));
    expect(n('true')).toBe(n('true'));
  });

  it('a label sent with escapes is known by what it says', () => {
    const cafe = names({ Café: 'cafe' });
    expect(hash(row('"Caf\\u00e9":"x"'), cafe)).toBe(hash(row('"Café":"x"'), cafe));
    expect(hash(row('"Bistro":"x"'), names({ Bistro: 'cafe' }))).toBe(hash(row('"Caf\\u00e9":"x"'), cafe));
  });

  it('the row read for its structure where a shortcut is not sure: an object before fields, "fields" in strings and names, spacing, fields not last', () => {
    const pairs: Array<[string, string]> = [
      [
        '{"id":"c1","meta":{"fields":{"City":"x"}},"fields":{"City":"Oslo"}}',
        '{"id":"c1","meta":{"fields":{"City":"x"}},"fields":{"Town":"Oslo"}}',
      ],
      [
        '{"id":"c1","note":"\\"fields\\":{\\"City\\"","fields":{"City":"Oslo"},"x":["fields"]}',
        '{"id":"c1","note":"\\"fields\\":{\\"City\\"","fields":{"Town":"Oslo"},"x":["fields"]}',
      ],
      [
        '{"id":"c1","a\\"fields":{"City":1},"fields":{"City":"Oslo"}}',
        '{"id":"c1","a\\"fields":{"City":1},"fields":{"Town":"Oslo"}}',
      ],
      [
        '{ "id" : "c1" , "fields" : { "City" : "Oslo" , "Score" : 2 } }',
        '{ "id" : "c1" , "fields" : { "Score" : 2 , "Town" : "Oslo" } }',
      ],
      [
        '{"id":"c1","fields":{"City":"Oslo","fields":"f"},"after":{"fields":{}}}',
        '{"id":"c1","fields":{"Town":"Oslo","fields":"f"},"after":{"fields":{}}}',
      ],
    ];
    const one = names({ City: 'city', Score: 'score' });
    const two = names({ Town: 'city', Score: 'score' });
    for (const [a, b] of pairs) {
      expect(hash(b, two), a).toBe(hash(a, one));
      expect(hash(b.replace('Oslo', 'Oslx'), two), a).not.toBe(hash(a, one));
    }
    // No fields object, or one that is not an object: the text as it is.
    expect(hash('{"id":"c1","fields":null}')).not.toBe(hash('{"id":"c1","fields":[]}'));
  });

  it('rows longer than the copy buffer, and many random rows under random relabels', () => {
    const long = 'é'.repeat(70_000);
    expect(hash(row(`"City":"${long}"`), before)).toBe(hash(row(`"Town":"${long}"`), after));
    let seed = 7;
    const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const texts = new Set<string>();
    for (let round = 0; round < 300; round++) {
      const keys = ['a', 'b', 'c', 'd'].filter(() => random(3) > 0);
      const labels = (tag: string) => Object.fromEntries(keys.map((k) => [k, `${k}-${tag}-${random(5)}`]));
      const [l1, l2] = [labels('x'), labels('y')];
      const values = keys.map((k) => [k, random(4) === 0 ? random(100) : `v${random(50)}`] as const);
      const text = (l: Record<string, string>, order: readonly (readonly [string, unknown])[]) =>
        row(order.map(([k, v]) => `${JSON.stringify(l[k])}:${JSON.stringify(v)}`).join(','));
      const byLabel = (l: Record<string, string>) => names(Object.fromEntries(keys.map((k) => [l[k], k])));
      const h = hash(text(l1, values), byLabel(l1));
      expect(hash(text(l2, [...values].reverse()), byLabel(l2))).toBe(h);
      texts.add(`${JSON.stringify(values)} ${h}`);
    }
    // Different values hash apart (as many hashes as contents).
    const contents = new Set([...texts].map((t) => t.split(' ')[0]));
    expect(new Set([...texts].map((t) => t.split(' ')[1])).size).toBe(contents.size);
  });
});
