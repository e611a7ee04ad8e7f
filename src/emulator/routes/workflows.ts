import { EmulatorError } from '../error-answer.js';
import { lookupById, requireIdentifiers } from '../membership.js';
import { contactNotFound, findContact } from '../contact-identifiers.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import { optionalObject } from '../validate.js';
import { cloneJson } from '../../lib/exact-number.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** POST /v2/workflows/:workflowId/trigger. */
export function workflowRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.triggerWorkflow, triggerWorkflow);
}

// Order: workflow (404), API-triggered (400), body (400), contact (404); a paused workflow answers triggered: false.
function triggerWorkflow({ params, body, store }: ApiContext): RouteResult {
  const workflow = lookupById(store.workflows, params.workflowId);
  if (!workflow) throw new EmulatorError(404, 'workflow_not_found', `No workflow ${params.workflowId}`);
  if (!workflow.apiTriggered) {
    throw new EmulatorError(
      400,
      'workflow_not_api_triggered',
      `Workflow ${workflow.id} is not triggered through the API`,
    );
  }
  const ids = requireIdentifiers(body);
  const data = optionalObject(body, 'data') ?? {};
  const contact = findContact(store, ids);
  if (!contact) throw contactNotFound();
  if (!workflow.active) return { body: { data: { triggered: false } } };
  workflow.triggers.push({ contactId: contact.id, data: cloneJson(data), triggeredAt: store.clock.now() });
  return { body: { data: { triggered: true } } };
}
