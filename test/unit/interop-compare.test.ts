// The comparison npm run interop judges the targets by (scripts/interop/compare.mjs): a target
// that rounds a number, drops or adds a row, or changes a value must fail it; a zone-less
// PostgreSQL timestamp, an absent property and a number's spelling must not.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { byKey, canonicalNumber, contactAsRecord, diffRows, parseExact } from '../../scripts/interop/compare.mjs';

const rows = (...json: string[]) =>
  byKey(
    json.map((j) => parseExact(j)),
    'id',
  );

describe('interop comparison', () => {
  it('numbers by exact decimal value: 2^53+1 and 50 digits are not their rounded doubles', () => {
    expect(canonicalNumber('43')).toBe(canonicalNumber('43.0'));
    expect(canonicalNumber('1e3')).toBe(canonicalNumber('1000'));
    expect(canonicalNumber('9007199254740993')).not.toBe(canonicalNumber('9007199254740992'));
    const exact = rows('{"id":"a","score":12345678901234567890123456789012345678901234567890}');
    const rounded = rows('{"id":"a","score":1.2345678901234568e49}');
    expect(diffRows(exact, rounded)).toEqual([expect.stringContaining('a.score')]);
    expect(diffRows(exact, rows('{"id":"a","score":12345678901234567890123456789012345678901234567890.0}'))).toEqual(
      [],
    );
  });

  it('a missing row, an extra row and a changed value are each reported', () => {
    const account = rows('{"id":"a","city":"Oslo"}', '{"id":"b","city":null}');
    expect(diffRows(account, rows('{"id":"a","city":"Oslo"}'))).toEqual(['b: missing']);
    expect(diffRows(account, rows('{"id":"a","city":"Oslo"}', '{"id":"b"}', '{"id":"c"}'))).toEqual([
      'c: not in the account (an extra row)',
    ]);
    expect(diffRows(account, rows('{"id":"a","city":"Bergen"}', '{"id":"b"}'))).toEqual([
      'a.city: expected "Oslo", got "Bergen"',
    ]);
  });

  it('the last row of a key wins; _sdc_ columns, absent properties and a zone-less UTC timestamp compare equal', () => {
    const account = rows('{"id":"a","updatedAt":"2025-01-09T09:36:32.279Z","vip":null,"data":{"n":1}}');
    const table = rows(
      '{"id":"a","updatedAt":"2020-01-01T00:00:00Z"}',
      '{"id":"a","updatedAt":"2025-01-09T09:36:32.279","data":{"n":1.0},"_sdc_sequence":5}',
    );
    expect(diffRows(account, table)).toEqual([]);
    expect(diffRows(account, rows('{"id":"a","updatedAt":"2025-01-09T09:36:32.280","data":{"n":1}}'))).toHaveLength(1);
  });

  it("an export row becomes the tap's record: fields spread by key, field_<key> on a clash with a member", () => {
    expect(contactAsRecord({ id: 'a', email: 'x@example.com', fields: { city: 'Oslo', email: 'other' } })).toEqual({
      id: 'a',
      email: 'x@example.com',
      city: 'Oslo',
      field_email: 'other',
    });
  });
});
