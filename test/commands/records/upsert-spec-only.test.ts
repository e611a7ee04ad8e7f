import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { customObjectField, MOCK_API, useFieldPages, useFakeApi } from '../../helpers/fake-api.js';

// A server that is only the spec (undici's MockAgent): the CLI must send only the parameters
// the spec names and cope with what the spec leaves open.
const BASE = MOCK_API;
const CO = 'c0000000-0000-4000-8000-000000000001';
const OTHER_CO = 'c0000000-0000-4000-8000-000000000002';
const api = useFakeApi();
const fields = useFieldPages(api);

const run = (args: string[]) => cnvInProcess(args, { env: api.env, dispatcher: api.dispatcher });
const field = customObjectField;
/** Answers the record batch, keeping each body sent. */
function batchReply(bodies: unknown[]) {
  api.agent
    .get(BASE)
    .intercept({ path: `/v2/custom-objects/${CO}/records/batch`, method: 'POST' })
    .reply((req) => {
      bodies.push(JSON.parse(String(req.body)));
      const records = (JSON.parse(String(req.body)) as { records: Array<{ clientDedupKey: string }> }).records;
      return {
        statusCode: 200,
        data: {
          data: {
            processed: records.length,
            succeeded: records.length,
            failed: 0,
            results: records.map((r, i) => ({
              success: true,
              id: `00000000-0000-4000-8000-00000000000${i}`,
              clientDedupKey: r.clientDedupKey,
              operation: 'CREATE',
            })),
          },
        },
      };
    })
    .persist();
}
const csv = (text: string) => {
  const path = join(api.dir, 'records.csv');
  writeFileSync(path, text);
  return path;
};

describe('records upsert against a server that is only the spec', () => {
  it("lists definitions with objectType, limit and cursor only, keeps this custom object's client-side, and coerces with them", async () => {
    fields.answer([
      [field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)],
      [field('autoRenew', 'BOOLEAN', CO)],
    ]);
    const bodies: any[] = [];
    batchReply(bodies);
    const res = await run([
      'records',
      'upsert',
      CO,
      '--file',
      csv('clientDedupKey,seats,autoRenew,otherSeats\nr-1,3,yes,4\nr-2,5,no,\n'),
    ]);
    for (const p of fields.paths) {
      const query = new URL(p, BASE).searchParams;
      expect(
        [...query.keys()].every((k) => ['objectType', 'limit', 'cursor'].includes(k)),
        p,
      ).toBe(true);
      expect(query.get('objectType')).toBe('CUSTOM_OBJECT');
    }
    expect(fields.paths).toHaveLength(2);
    expect(new URL(fields.paths[1], BASE).searchParams.get('cursor')).toBe('page-1');
    // otherSeats belongs to another custom object: the file is refused before any record is sent.
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      'a column that names nothing POST /v2/custom-objects/c0000000-0000-4000-8000-000000000001/records/batch takes: "otherSeats" (no key or field is near it)',
    );
    expect(bodies).toEqual([]);
    fields.answer([
      [field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)],
      [field('autoRenew', 'BOOLEAN', CO)],
    ]);
    const left = await run([
      'records',
      'upsert',
      CO,
      '--file',
      csv('clientDedupKey,seats,autoRenew,otherSeats\nr-1,3,yes,4\nr-2,5,no,\n'),
      '--ignore-column',
      'otherSeats',
    ]);
    expect(left.exitCode, left.stderr).toBe(0);
    expect(bodies.flatMap((b) => b.records)).toEqual([
      { clientDedupKey: 'r-1', fields: { seats: 3, autoRenew: true } },
      { clientDedupKey: 'r-2', fields: { seats: 5, autoRenew: false } },
    ]);
  });

  it.each([
    [
      'a 404 (no such list on this server)',
      404,
      { error: { code: 'not_found', message: 'No route' } },
      /could not read the field definitions \(not_found: No route\)/,
    ],
    [
      'a 403',
      403,
      { error: { code: 'forbidden', message: 'no' } },
      /could not read the field definitions \(forbidden: no\)/,
    ],
    ['an off-contract 200', 200, { data: { items: [] } }, /could not read the field definitions \(invalid_response/],
  ])(
    'when the definitions cannot be read (%s), warns and sends the values uncoerced, as --no-coerce',
    async (_name, status, body, warning) => {
      api.agent
        .get(BASE)
        .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
        .reply(status, body);
      const bodies: any[] = [];
      batchReply(bodies);
      const res = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats\nr-1,3\n')]);
      expect(res.exitCode, res.stderr).toBe(0);
      expect(res.stderr).toMatch(new RegExp(`warning: ${warning.source}`));
      expect(res.stderr).toMatch(/as with --no-coerce/);
      expect(bodies).toEqual([{ records: [{ clientDedupKey: 'r-1', fields: { seats: '3' } }] }]);
    },
  );

  it('--check still needs the definitions: a failed read is an error, not a warning', async () => {
    api.agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply(403, { error: { code: 'forbidden', message: 'no' } });
    const res = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats\nr-1,3\n'), '--check']);
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/forbidden/);
  });
});
