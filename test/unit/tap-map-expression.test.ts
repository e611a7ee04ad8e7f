import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExactNumber } from '../../src/lib/exact-number.js';
import { compileExpression, evaluate } from '../../src/tap/map-expression.js';
import { readStreamMaps } from '../../src/tap/stream-maps.js';

const scope = (record: Record<string, unknown>, self: unknown = null) => ({
  record,
  self,
  stream: 'contacts_v2',
  original: 'contacts',
  config: { seed: 's' },
});
const run = (text: string, record: Record<string, unknown> = {}, self?: unknown) =>
  evaluate(compileExpression(text), scope(record, self));
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('stream map expressions', () => {
  it('the common forms: a property, record[...], _[...], config[...], texts, md5/sha256, +, self, the stream names', () => {
    const record = { email: 'a@x.io', city: null, n: new ExactNumber('9007199254740993'), __proto__: 'p' };
    Object.defineProperty(record, '__proto__', { value: 'p', enumerable: true });
    expect(run('email', record)).toBe('a@x.io');
    expect(run("record['email']", record)).toBe('a@x.io');
    expect(run('_["__proto__"]', record)).toBe('p');
    expect(run('missing', record)).toBe(null);
    expect(run("md5(config['seed'] + email)", record)).toBe(md5('sa@x.io'));
    expect(run('sha256(email)', record)).toBe(createHash('sha256').update('a@x.io').digest('hex'));
    expect(run('md5(city)', record)).toBe(null);
    expect(run("'x' + city", record)).toBe(null);
    expect(run('md5(n)', record)).toBe(md5('9007199254740993'));
    expect(run(`'it\\'s' + "\\"q\\""`, record)).toBe(`it's"q"`);
    expect(run('self', record, 'own')).toBe('own');
    expect(run("__original_stream_name__ + '/' + __stream_name__", record)).toBe('contacts/contacts_v2');
  });

  it('everything else is refused when read, saying what is supported', () => {
    for (const text of [
      "email.split('@')[-1]",
      'int(score)',
      'fake.first_name()',
      'email == "x"',
      'md5(email',
      "'open",
      'record',
      'foo[0]',
      'json.dumps(record)',
      '',
    ])
      expect(() => compileExpression(text), text).toThrow(/supported: a property name/);
  });

  it('stream_maps: the outputs of each stream (alias, copies, removal, globs, __else__) and refusals by name', () => {
    const warnings: string[] = [];
    const maps = readStreamMaps(
      'c.json',
      {
        contacts: { email: null, __alias__: 'people' },
        copy: { __source__: 'contacts', __else__: '__NULL__' },
        'email_*': null,
        deals: {},
        __else__: null,
        fields: {},
      },
      {},
      (m) => warnings.push(m),
    );
    expect(maps.outputs('contacts').map((o) => o.name)).toEqual(['people', 'copy']);
    expect(maps.outputs('email_events')).toEqual([]);
    expect(maps.outputs('custom_events')).toEqual([]);
    expect(maps.outputs('fields').map((o) => o.name)).toEqual(['fields']);
    expect(warnings).toEqual([expect.stringContaining('stream_maps.deals: no stream of this tap matches it')]);
    const refused =
      (maps: Record<string, unknown>, config = {}) =>
      () =>
        readStreamMaps('c.json', maps, config, () => {});
    expect(refused({ __bogus__: {} })).toThrow(/stream_maps\.__bogus__: not a stream map option/);
    expect(refused({ contacts: 'x' })).toThrow(/stream_maps\.contacts: a stream map is an object/);
    expect(refused({ contacts: { a: 1 } })).toThrow(/stream_maps\.contacts\.a: an expression/);
    expect(refused({ contacts: { __else__: 'x' } })).toThrow(/only null/);
    expect(refused({ contacts: { __key_properties__: 'id' } })).toThrow(/a list of property names/);
    expect(refused({ '[ab]*': {} })).toThrow(/takes \* and \? only/);
    expect(refused({ contacts: { id: null, __key_properties__: ['email'] } })).not.toThrow();
  });
});
