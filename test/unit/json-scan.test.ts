import { describe, expect, it } from 'vitest';
import { jsonArrayRows } from '../../src/input/json-array-rows.js';
import { nestsDeeper } from '../../src/input/input-rows.js';
import { keysWritten, oneLine, repeatedKey, scanJson, TOO_DEEP, type ScanState } from '../../src/lib/json-scan.js';

const fresh = (): ScanState => ({ depth: 0, inString: false });

describe('scanJson (the one JSON scanner)', () => {
  it('finds the bracket that closes a value, strings and escapes skipped', () => {
    const text = '{"a":"}\\"]","b":[1,{"c":"\\\\"}]} tail';
    expect(scanJson(text, 0, text.length, fresh())).toBe(text.indexOf(' tail') - 1);
  });

  it('with separators, stops at the first , ] or } at depth 0', () => {
    expect(scanJson('{"a":[1,2]}, 3', 0, 14, { ...fresh(), separators: true })).toBe(11);
    expect(scanJson('"x,]" ]', 0, 7, { ...fresh(), separators: true })).toBe(6);
    expect(scanJson('12}', 0, 3, { ...fresh(), separators: true })).toBe(2);
  });

  it('goes on where a chunk ended, inside a string or a nesting', () => {
    const state = fresh();
    const text = '{"a":"x\\';
    expect(scanJson(text, 0, text.length, state)).toBe(-1);
    expect(state).toEqual({ depth: 1, inString: true });
    // The next text holds the string from its opening quote, so the escape is seen.
    const more = '"a":"x\\"y"}';
    expect(scanJson(more, 5, more.length, state)).toBe(more.length - 1);
  });

  it('says when a value nests deeper than allowed', () => {
    expect(scanJson('[[[1]]]', 0, 7, { ...fresh(), maxDepth: 2 })).toBe(TOO_DEEP);
    expect(scanJson('[[[1]]]', 0, 7, { ...fresh(), maxDepth: 3 })).toBe(6);
    expect(nestsDeeper(`{"a":${'['.repeat(101)}${']'.repeat(101)}}`)).toBe(true);
    expect(nestsDeeper(`{"a":"${'['.repeat(300)}"}`)).toBe(false);
  });
});

describe('jsonArrayRows', () => {
  async function rowsOf(chunks: string[]) {
    const out: unknown[] = [];
    for await (const rows of jsonArrayRows(
      (async function* () {
        yield* chunks;
      })(),
      'f.json',
    ))
      out.push(...rows);
    return out;
  }

  it('reads the same rows and lines however the text is cut', async () => {
    const text = '\uFEFF[\n{"a":"x\\\\"},\n  {"b":"q\\"\\n", "c":[1,{"d":"]"}]},\n42, {"bad": tru},\n"s,]"\n]\n';
    const whole = await rowsOf([text]);
    expect(whole).toEqual([
      { line: 2, values: { a: 'x\\' } },
      { line: 3, values: { b: 'q"\n', c: [1, { d: ']' }] } },
      { line: 4, error: 'expected a JSON object, got a number' },
      { line: 4, error: expect.stringMatching(/^not valid JSON/) },
      { line: 5, error: 'expected a JSON object, got a string' },
    ]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
      expect(await rowsOf(chunks)).toEqual(whole);
    }
  });
});

describe('oneLine (a row on one NDJSON line)', () => {
  it('keeps a text without line breaks as it is, spacing, escapes and numbers included', () => {
    const text = '{"id": "a",\t"n": 1.50, "big": 12345678901234567890, "e": "\\u00e9\\/ \\n"}';
    expect(oneLine(text)).toBe(text);
  });

  it('drops the whitespace between tokens of a text spread over lines, never inside strings', () => {
    const value = { id: 'a b', s: ' x\n\t"y" ', list: [1, { 'k k': [] }], n: null };
    expect(oneLine(JSON.stringify(value, null, 2))).toBe(JSON.stringify(value));
    expect(oneLine('{\r\n "a" :\t"\\" ",\n"b": 1e2 }')).toBe('{"a":"\\" ","b":1e2}');
  });
});

describe('repeatedKey (a key named twice in one object)', () => {
  it('names the key, with the keys of the objects around it', () => {
    expect(repeatedKey('{"email":"a@x.com","email":"b@x.com"}')).toBe('email');
    expect(repeatedKey('{"email":"a@x.com","fields":{"city":"A","n":[{"x":1}],"city":"B"}}')).toBe('fields.city');
    // Keys compare as JSON.parse reads them.
    expect(repeatedKey('{"a":1,"\\u0061":2}')).toBe('a');
  });

  it('is undefined when every object names each key once, whatever strings and arrays hold', () => {
    expect(repeatedKey('{"a":"\\"a\\":1,","b":{"a":1},"c":[{"a":1},{"a":2}],"d":["a","a"]}')).toBeUndefined();
    expect(repeatedKey('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(repeatedKey('{}')).toBeUndefined();
  });
});

describe('keysWritten (the members a JSON text writes)', () => {
  it('counts each key once, whatever strings hold (escaped quotes, colons)', () => {
    expect(keysWritten('{"a":1,"b" : {"c":"x\\":y","d":[{"e":null}]}}')).toBe(5);
    expect(keysWritten('{"a\\\\":"\\\\\\":"}')).toBe(1);
    expect(keysWritten('["a:", "b"]')).toBe(0);
    expect(keysWritten('{"email":"a@x.com","email":"b@x.com"}')).toBe(2);
  });
});
