import { EmulatorError } from '../error-answer.js';
import { lookupById } from '../membership.js';
import type { StoredForm } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import { FIXTURE_WORKSPACE_ID } from '../seed/fixtures.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** GET /v2/forms/:formId: tracked, published, unarchived native forms of the key's workspace only. */
export function formRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.getForm, getForm);
}

function readable(form: StoredForm | undefined): form is StoredForm {
  return (
    !!form &&
    form.kind === 'NATIVE' &&
    form.tracked &&
    form.published &&
    !form.archived &&
    form.workspaceId === FIXTURE_WORKSPACE_ID
  );
}

function getForm({ params, store }: ApiContext): RouteResult {
  const form = lookupById(store.forms, params.formId);
  // One answer for every reason, so the API does not reveal which forms exist elsewhere.
  if (!readable(form)) throw new EmulatorError(404, 'form_not_found', `No form ${params.formId}`);
  const view = {
    id: form.id,
    name: form.name,
    createdAt: form.createdAt,
    updatedAt: form.updatedAt,
    submissionCount: form.submissionCount,
    lastSubmittedAt: form.lastSubmittedAt,
    fields: form.fields.map((f) => structuredClone(f)),
  };
  return { body: { data: { form: view } } };
}
