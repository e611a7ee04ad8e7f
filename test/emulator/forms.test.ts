import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FIXTURE_BASIC_FORMS, FIXTURE_FORMS as FORMS } from '../../src/emulator/seed/fixtures.js';
import { call, expectError } from './helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, quiet: true });
});
afterAll(() => emu.close());

describe('GET /v2/forms/:id', () => {
  it('answers a tracked, published native form with its fields', async () => {
    const res = await call(emu, 'GET', `/v2/forms/${FORMS.contactUs.id}`);
    expect(res.status).toBe(200);
    const form = res.json.data.form;
    expect(form).toMatchObject({
      id: FORMS.contactUs.id,
      name: 'Contact us',
      submissionCount: 128,
      lastSubmittedAt: '2024-11-28T16:20:00.000Z',
    });
    expect(Object.keys(form).sort()).toEqual([
      'createdAt',
      'fields',
      'id',
      'lastSubmittedAt',
      'name',
      'submissionCount',
      'updatedAt',
    ]);
    expect(form.fields.map((f: { type: string }) => f.type)).toEqual([
      'EMAIL',
      'DROPDOWN',
      'LONG_ANSWER',
      'HIDDEN',
      'MULTI_CHECKBOX',
      'GDPR_CONSENT',
    ]);
    const dropdown = form.fields[1];
    expect(dropdown).toEqual({
      fieldId: expect.any(String),
      name: 'Topic',
      type: 'DROPDOWN',
      required: true,
      hidden: false,
      options: FORMS.contactUs.fields[1].options,
    });
    expect(form.fields[0].options).toBeUndefined();
    expect(form.fields[3].hidden).toBe(true);
  });

  it.each([
    ['untracked', FORMS.untracked.id],
    ['archived', FORMS.archived.id],
    ['never published', FORMS.neverPublished.id],
    ['external', FORMS.external.id],
    ['ad', FORMS.ad.id],
    ['another workspace', FORMS.otherWorkspace.id],
    ['another business', FIXTURE_BASIC_FORMS.basicSignup.id],
    ['unknown', 'f1000000-0000-4000-8000-00000000ffff'],
    ['malformed id', 'contact-us'],
  ])('a form that is %s answers 404 form_not_found', async (_why, id) => {
    expectError(await call(emu, 'GET', `/v2/forms/${id}`), 404, 'form_not_found');
  });
});
