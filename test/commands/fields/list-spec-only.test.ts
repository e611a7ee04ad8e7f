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

describe('fields list --custom-object-id against a server that is only the spec', () => {
  it('sends objectType only and keeps the rows of that custom object', async () => {
    fields.answer([[field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)]]);
    const res = await run(['fields', 'list', '--custom-object-id', CO, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect([...new URL(fields.paths[0], BASE).searchParams.entries()]).toEqual([['objectType', 'CUSTOM_OBJECT']]);
    expect(JSON.parse(res.stdout).map((f: { key: string }) => f.key)).toEqual(['seats']);
  });
});
