import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { isExactNumber } from '../../src/lib/exact-number.js';
import { readMessage } from '../../src/target/singer-input.js';

describe("a line of the target's stdin", () => {
  it("a STATE's value is its text as the tap wrote it: spacing, escapes, key order and numbers beyond doubles", () => {
    const line =
      '{"type":"STATE", "value" : {"b": 1, "a": [123456789012345678901234567890, "caf\\u00e9"], "2": null} }';
    expect(readMessage(line, 1)).toEqual({
      type: 'STATE',
      value: '{"b": 1, "a": [123456789012345678901234567890, "caf\\u00e9"], "2": null}',
    });
    // As JSON.parse takes it: the last of two "value" members.
    expect(readMessage('{"value":1,"type":"STATE","value":{"x":"a,b}"}}', 1)).toEqual({
      type: 'STATE',
      value: '{"x":"a,b}"}',
    });
    expect(readMessage('{"type":"STATE","value":"a \\" quoted, value"}', 1)).toEqual({
      type: 'STATE',
      value: '"a \\" quoted, value"',
    });
  });

  it('an empty STATE (null, {}) has no value: it is never printed', () => {
    expect(readMessage('{"type":"STATE","value":null}', 1)).toEqual({ type: 'STATE', value: undefined });
    expect(readMessage('{"type":"STATE","value":{ }}', 1)).toEqual({ type: 'STATE', value: undefined });
  });

  it('SCHEMA, RECORD (numbers exact, its version), ACTIVATE_VERSION, BATCH and other types', () => {
    expect(
      readMessage('{"type":"SCHEMA","stream":"s","schema":{"properties":{"id":{},"n":{}}},"key_properties":["id"]}', 1),
    ).toEqual({ type: 'SCHEMA', stream: 's', properties: ['id', 'n'], keyProperties: ['id'] });
    const record = readMessage(
      '{"type":"RECORD","stream":"s","record":{"n":12345678901234567890.5},"version":1700000000000}',
      2,
    );
    expect(record).toMatchObject({ type: 'RECORD', stream: 's', version: 1700000000000 });
    expect(isExactNumber((record as { record: { n: unknown } }).record.n)).toBe(true);
    expect(readMessage('{"type":"ACTIVATE_VERSION","stream":"s","version":3}', 3)).toEqual({
      type: 'ACTIVATE_VERSION',
      stream: 's',
      version: 3,
    });
    expect(readMessage('{"type":"BATCH","stream":"s","manifest":[]}', 4)).toEqual({ type: 'BATCH', stream: 's' });
    expect(readMessage('{"type":"METRIC"}', 5)).toEqual({ type: 'other', name: 'METRIC' });
    expect(readMessage('   ', 6)).toBeUndefined();
  });

  it('a line that is no message is exit 2 naming its line', () => {
    const refused = (text: string) => {
      try {
        readMessage(text, 7);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as UsageError).message;
      }
      throw new Error('not refused');
    };
    expect(refused('not json')).toMatch(/^stdin line 7: not JSON/);
    expect(refused('[1]')).toBe('stdin line 7: not a Singer message (no "type")');
    expect(refused('{"type":"RECORD","stream":"s"}')).toBe('stdin line 7: RECORD without a "record" object');
    expect(refused('{"type":"SCHEMA","stream":"s","schema":{}}')).toBe(
      'stdin line 7: SCHEMA of "s" without "schema.properties"',
    );
    expect(refused('{"type":"ACTIVATE_VERSION","stream":"s"}')).toBe(
      'stdin line 7: ACTIVATE_VERSION without a "version"',
    );
    expect(refused('{"type":"RECORD","record":{}}')).toBe('stdin line 7: RECORD without a "stream"');
  });
});
