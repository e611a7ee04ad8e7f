import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeOutput, shapeOf } from '../../src/cmdutil/json-output.js';

// The help's JSON OUTPUT text is derived from each command's declared schemas: the notation.
describe("shapeOf: a schema in the help's notation", () => {
  it.each([
    [z.strictObject({ a: z.string(), b: z.number().optional() }), '{a, b?}'],
    [z.looseObject({ a: z.string() }), '{a, ...}'],
    [z.strictObject({ a: z.strictObject({ b: z.boolean() }).nullable() }), '{a: {b}}'],
    [z.array(z.strictObject({ id: z.string() })), '[{id}]'],
    [z.record(z.string().describe('TYPE'), z.number()), '{TYPE: number}'],
    [z.record(z.string(), z.unknown()), '{KEY: any JSON}'],
    [
      z.union([z.strictObject({ kind: z.literal('file') }), z.strictObject({ kind: z.literal('stdout') })]),
      "{kind: 'file'} or {kind: 'stdout'}",
    ],
    [z.strictObject({ status: z.enum(['ok', 'fail']) }), '{status: ok|fail}'],
    [z.strictObject({ apiKey: z.string().nullable().describe('masked') }), '{apiKey (masked)}'],
  ])('%#: %s', (schema, text) => {
    expect(shapeOf(schema)).toBe(text);
  });
});

describe('describeOutput', () => {
  it('says each document with the flags that choose it, NDJSON ones as lines, and the notes', () => {
    const text = describeOutput({
      documents: [
        { schema: z.strictObject({ a: z.string() }), note: "(the API's data)" },
        {
          when: 'with --plan',
          lines: true,
          what: 'a line per change:',
          schema: z.strictObject({ type: z.literal('change') }),
        },
        { when: 'with --paginate', what: 'the items', schema: z.unknown() },
      ],
      note: '-q applies to each',
    });
    expect(text).toBe(
      "{a} (the API's data); with --plan NDJSON, one line each: a line per change: {type: 'change'}; with --paginate the items; -q applies to each",
    );
  });
});
