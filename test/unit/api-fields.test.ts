import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fieldsObject, type FieldArg } from '../../src/commands/api/fields.js';
import { apiIdempotency } from '../../src/commands/api/idempotency.js';

const f = (text: string): FieldArg => ({ flag: '-f', text });
const F = (text: string): FieldArg => ({ flag: '-F', text });
const stdin = (text = '') => Readable.from([text]);

describe('cnv api -f/-F', () => {
  it('-f is always a string; -F types true, false, null and numbers, like gh', async () => {
    expect(
      await fieldsObject(
        [f('a=42'), f('b=true'), F('c=42'), F('d=-1.5e3'), F('e=true'), F('g=null'), F('h=012'), F('i=text')],
        stdin(),
      ),
    ).toEqual({
      a: '42',
      b: 'true',
      c: 42,
      d: -1500,
      e: true,
      g: null,
      h: '012',
      i: 'text',
    });
  });

  it('key[sub] nests and key[] appends; a value after = may hold =', async () => {
    expect(
      await fieldsObject(
        [f('occurredAt[start]=2025-01-01'), f('occurredAt[end]=2025-02-01'), F('ids[]=1'), F('ids[]=2'), f('q=a=b')],
        stdin(),
      ),
    ).toEqual({
      occurredAt: { start: '2025-01-01', end: '2025-02-01' },
      ids: [1, 2],
      q: 'a=b',
    });
  });

  it('-F key=@- reads stdin', async () => {
    expect(await fieldsObject([F('note=@-')], stdin('from stdin'))).toEqual({ note: 'from stdin' });
  });

  it.each([
    [[f('=x')], /-f =x: expected key=value/],
    [[f('a[b=x')], /a key is a name/],
    [[f('a[][b]=x')], /\[\] may only end a key/],
    [[f('a=1'), f('a[b]=2')], /"a" is already set to a value that is not an object/],
  ])('bad keys are usage errors naming the flag: %j', async (args, message) => {
    await expect(fieldsObject(args, stdin())).rejects.toThrow(message);
  });
});

describe('cnv api retries', () => {
  it.each([
    ['GET', '/v2/campaigns', undefined, 'safe'],
    ['DELETE', '/v2/audiences/x/contacts', {}, 'safe'],
    ['POST', '/v2/contacts', {}, 'safe'],
    ['POST', '/v2/campaigns/x/contacts/batch', {}, 'safe'],
    ['POST', '/v2/exports/contacts', {}, 'safe'],
    ['POST', '/v2/events', { clientEventId: 'e1' }, 'safe'],
    ['POST', '/v2/events', { event: 'x' }, 'unsafe'],
    ['POST', '/v2/workflows/x/trigger', {}, 'unsafe'],
    ['POST', '/v2/fields', {}, 'unsafe'],
    ['POST', '/v2/fields/relationships', {}, 'unsafe'],
    ['POST', '/v2/something-new', {}, 'unsafe'],
    ['PUT', '/v2/contacts', {}, 'unsafe'],
  ])('%s %s %j is %s', (method, path, body, expected) => {
    expect(apiIdempotency(method, path, body)).toBe(expected);
  });
});
