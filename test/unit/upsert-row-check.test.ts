import { describe, expect, it } from 'vitest';
import { checkRow } from '../../src/batch/row-check.js';
import { checkUpsertRow, plainValidRow, upsertRowSchema } from '../../src/contacts/upsert-row.js';

const CODES = {
  email: 'invalid_email',
  subscriptionStatus: 'invalid_subscription_status',
  fields: 'invalid_field',
  companyFields: 'invalid_field',
};
const ID = '7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f';

// Every combination of these member values: the path without zod must give zod's payload, or step aside.
const VALUES: Record<string, unknown[]> = {
  email: [undefined, '  Ada@Example.com ', '   ', 'not an email', 'a@b..c', 42, null, 'jörg@bücher.de'],
  cnvContactId: [undefined, ` ${ID.toUpperCase()} `, 'nope', '', 7],
  subscriptionStatus: [undefined, 'subscribed', ' NO_STATUS ', 'BOUNCED', null],
  fields: [undefined, { firstName: 'Ada', score: 1 }, [], 'x', null, Object.create(null), new Date(0)],
  companyFields: [undefined, { size: 3 }, ['a']],
  updateOnly: [undefined, true, 'true'],
  note: [undefined, { a: 1 }],
};

function* bodies(): Generator<Record<string, unknown>> {
  const keys = Object.keys(VALUES);
  const walk = function* (i: number, body: Record<string, unknown>): Generator<Record<string, unknown>> {
    if (i === keys.length) return yield { ...body };
    for (const v of VALUES[keys[i]]) {
      // Some bodies lack the member, others hold it as undefined: zod treats both alike.
      const next = { ...body };
      if (v !== undefined || i % 2 === 0) next[keys[i]] = v;
      yield* walk(i + 1, next);
    }
  };
  yield* walk(0, {});
}

describe('a contact upsert row checked without zod where it surely passes', () => {
  it('gives exactly the payload zod gives (members and their order), and leaves every other row to zod', () => {
    let fast = 0;
    let total = 0;
    for (const body of bodies()) {
      total++;
      const byZod = checkRow(upsertRowSchema, body, 'x', CODES);
      const plain = plainValidRow(body);
      if (plain) {
        fast++;
        expect(byZod.invalid, JSON.stringify(body)).toBeUndefined();
        expect(JSON.stringify(plain)).toBe(JSON.stringify(byZod.payload));
        expect(plain).toEqual(byZod.payload);
      }
      expect(checkUpsertRow(body, 'x')).toEqual(byZod);
    }
    // Most of the plain rows take the fast path; the test covers both sides.
    expect(total).toBeGreaterThan(20_000);
    expect(fast).toBeGreaterThan(500);
    expect(fast).toBeLessThan(total);
  });

  it('copies the field maps: a payload never shares an object with the row it came from', () => {
    const fields = { firstName: 'Ada' };
    const out = checkUpsertRow({ email: 'ada@example.com', fields }, 'ada@example.com');
    expect(out.payload?.fields).toEqual(fields);
    expect(out.payload?.fields).not.toBe(fields);
  });
});
