import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/forms/get.js';
import { FIXTURE_FORMS as FORMS } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { fakeContext, useFakeContext } from '../../helpers/fake-context.js';

// `forms get`'s run alone: the form as the API sent it, or laid out for a table.
const ID = 'f1000000-0000-4000-8000-000000000001';
const FORM = {
  id: ID,
  name: 'Newsletter',
  submissionCount: 3,
  fields: [
    { fieldId: 'ff1', name: 'email', type: 'EMAIL', required: true },
    {
      fieldId: 'ff2',
      name: 'topics',
      type: 'MULTI_CHECKBOX',
      options: [
        { label: 'News', value: 'news' },
        { label: 'Events', value: 'Events' },
      ],
    },
  ],
};

const f = useFakeContext();

describe('forms get: run', () => {
  it('JSON (not a terminal): the form and its fields as the API sent them', async () => {
    f.api.on('GET', `/v2/forms/${ID}`, ok({ form: FORM }));
    expect(await run(f.ctx, { args: [ID], opts: {} })).toEqual({ kind: 'record', data: FORM });
  });

  it('a table (-o table): one row per field, with required, hidden and the options as text', async () => {
    const t = fakeContext({ api: f.api, globals: { format: 'table' } });
    f.api.on('GET', `/v2/forms/${ID}`, ok({ form: FORM }));
    const result = await run(t.ctx, { args: [ID], opts: {} });
    expect(result).toMatchObject({ kind: 'record', data: { name: 'Newsletter' } });
    expect((result as { data: { fields: unknown[] } }).data.fields).toEqual([
      { name: 'email', type: 'EMAIL', required: true, hidden: false, options: '', fieldId: 'ff1' },
      {
        name: 'topics',
        type: 'MULTI_CHECKBOX',
        required: false,
        hidden: false,
        options: 'News (news), Events',
        fieldId: 'ff2',
      },
    ]);
  });

  it('a form without fields has none; 404 form_not_found is exit 5', async () => {
    f.api.on(
      'GET',
      `/v2/forms/${ID}`,
      ok({ form: { id: ID, name: 'Empty' } }),
      apiError(404, 'form_not_found', 'not a tracked form'),
    );
    expect(await run(f.ctx, { args: [ID], opts: {} })).toEqual({
      kind: 'record',
      data: { id: ID, name: 'Empty', fields: [] },
    });
    await expect(run(f.ctx, { args: [ID], opts: {} })).rejects.toMatchObject({ exitCode: 5, code: 'form_not_found' });
  });
});

const fx = useEmulator();

const json = (s: string) => JSON.parse(s);

describe('cnv forms get (in-process)', () => {
  it('prints the form with every field, options included, and an unknown field type as it comes', async () => {
    const res = await cnvInProcess(['forms', 'get', FORMS.contactUs.id], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const form = json(res.stdout);
    expect(form.fields.map((f: { type: string }) => f.type)).toEqual([
      'EMAIL',
      'DROPDOWN',
      'LONG_ANSWER',
      'HIDDEN',
      'MULTI_CHECKBOX',
      'GDPR_CONSENT',
    ]);
    expect(form.fields[4].options).toEqual([
      { label: 'Exports', value: 'exports' },
      { label: 'Workflows', value: 'workflows' },
      { label: 'Forms', value: 'forms' },
    ]);
  });

  it('is readable as a table: a row per field with type, required, hidden and options', async () => {
    const res = await cnvInProcess(['forms', 'get', FORMS.contactUs.id, '-o', 'table', '--no-color'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const topic = res.stdout.split('\n').find((l) => l.includes('Topic'))!;
    expect(topic).toMatch(/DROPDOWN {2,}true {2,}false {2,}Sales \(sales\), Support \(support\), Press \(press\)/);
    expect(res.stdout).toMatch(/GDPR_CONSENT/);
  });

  it.each([FORMS.untracked.id, FORMS.external.id, FORMS.ad.id, FORMS.neverPublished.id])(
    'an unreadable form exits 5: %s',
    async (id) => {
      const res = await cnvInProcess(['forms', 'get', id], { env: fx.env });
      expect(res.exitCode).toBe(5);
      expect(res.stderr).toMatch(/^error: form_not_found: /m);
    },
  );
});
