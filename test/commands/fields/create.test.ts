import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/fields/create.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `fields create`'s run alone: POST /v2/fields is gated, and not idempotent (a repeat may make two fields).
const FIELD = { key: 'ltvEur', label: 'Lifetime value (EUR)', objectType: 'CONTACT', dataType: 'NUMBER' };
const OPTS = { label: ' Lifetime value (EUR) ', objectType: 'CONTACT', dataType: 'NUMBER', key: 'ltvEur' } as const;

const f = useFakeContext();

describe('fields create: run', () => {
  it('sends the label (trimmed), object type, data type and key; the created field is the record', async () => {
    f.api.on('POST', '/v2/fields', ok({ field: FIELD }));
    expect(await run(f.ctx, { args: [], opts: OPTS })).toEqual({ kind: 'record', data: FIELD });
    expect(f.api.requests[0].body).toEqual({ label: 'Lifetime value (EUR)', objectType: 'CONTACT', dataType: 'NUMBER', key: 'ltvEur' });
  });

  it.each([
    [{ ...OPTS, label: '  ' }, /^--label: required/],
    [{ ...OPTS, objectType: undefined }, /^--object-type: required/],
    [{ ...OPTS, dataType: undefined }, /^--data-type: required/],
    [{ ...OPTS, key: 'ltv-eur' }, /^--key: only letters, digits and underscores/],
  ])('what the API would refuse for sure is exit 2, nothing sent (%#)', async (opts, message) => {
    await expect(run(f.ctx, { args: [], opts })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
  });

  it('not enabled for the account: 403 export_not_enabled, exit 4; a taken key: 400 invalid_field, exit 3', async () => {
    f.api.on('POST', '/v2/fields', apiError(403, 'export_not_enabled', 'not enabled'), apiError(400, 'invalid_field', 'key taken'));
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({ exitCode: 4, code: 'export_not_enabled' });
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({ exitCode: 3, code: 'invalid_field', message: 'key taken' });
  });

  it('a 500 is not sent again (the field may exist now): exit 7; a 429 is', async () => {
    f.api.on('POST', '/v2/fields', apiError(500, 'internal_error', 'boom'));
    await expect(run(f.ctx, { args: [], opts: OPTS })).rejects.toMatchObject({ exitCode: 7, hint: expect.stringMatching(/may have reached the server/) });
    f.api.on('POST', '/v2/fields', apiError(429, 'rate_limited', 'slow down'), ok({ field: FIELD }));
    expect(await run(f.ctx, { args: [], opts: OPTS })).toMatchObject({ data: FIELD });
  });
});
