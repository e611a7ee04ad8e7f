import { describe, expect, it } from 'vitest';
import { arrayElementSpans } from '../../src/io/json-spans.js';

const slices = (text: string, path: string[]) => arrayElementSpans(text, path)?.map(([a, b]) => text.slice(a, b));

describe('arrayElementSpans', () => {
  it('finds each element of the array at a path, as the bytes it was sent as', () => {
    const text = '{"pagination":{"nextCursor":"a,]}"},"data":{"x":[1,{"y":"]"}],"contacts":[{"id":"1","s":"q\\"},{"},{"id":"é2","n":[1,2,{"a":null}]} , 3, "x", true,null]}}';
    expect(slices(text, ['data', 'contacts'])).toEqual(['{"id":"1","s":"q\\"},{"}', '{"id":"é2","n":[1,2,{"a":null}]}', '3', '"x"', 'true', 'null']);
  });

  it('whitespace and line breaks around elements are not part of them', () => {
    expect(slices('{\n  "data": {\n    "events": [\n      {"a": 1},\n      {"b": 2}\n    ]\n  }\n}\n', ['data', 'events'])).toEqual(['{"a": 1}', '{"b": 2}']);
    expect(slices('{"data":{"events":[ ]}}', ['data', 'events'])).toEqual([]);
  });

  it('another shape is undefined, not a guess', () => {
    expect(slices('{"data":{"events":{}}}', ['data', 'events'])).toBeUndefined();
    expect(slices('{"data":[]}', ['data', 'events'])).toBeUndefined();
    expect(slices('{"other":{"events":[1]}}', ['data', 'events'])).toBeUndefined();
    expect(slices('[1,2]', ['data'])).toBeUndefined();
    expect(slices('{"data":{"events":[1,2', ['data', 'events'])).toBeUndefined();
  });

  it('a key is matched whole, escapes included', () => {
    expect(slices('{"dat":{"events":[9]},"data\\u0000":{"events":[8]},"data":{"events":[7]}}', ['data', 'events'])).toEqual(['7']);
  });
});
