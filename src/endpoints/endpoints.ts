import { body, query, type Endpoint } from '../http/endpoint.js';
import { campaignAnswer, campaignListAnswer } from './campaigns.js';
import { contactAnswer, upsertResult, type ContactQuery, type UpsertContactBody } from './contacts.js';
import { trackResult, type TrackEventBody } from './events.js';
import {
  contactRow,
  eventRow,
  type ContactsExportBody,
  type CustomEventsExportBody,
  type EmailEventsExportBody,
} from './exports.js';
import {
  fieldListAnswer,
  fieldSchema,
  relationshipResult,
  type CreateFieldBody,
  type ListFieldsQuery,
  type RelationshipSide,
} from './fields.js';
import { formAnswer } from './forms.js';
import type { ContactIdentifier } from './identifiers.js';
import { addResult, batchAddResults, removeResult } from './memberships.js';
import { recordsResult, type RecordInput } from './records.js';
import { triggerResult, type TriggerWorkflowBody } from './workflows.js';

const contacts = body<{ contacts: ContactIdentifier[] }>();

/**
 * Every endpoint of the spec (/work/shared/api-spec.md), once: the client sends by it
 * (`http.call(ENDPOINTS.getCampaign, { params: { campaignId } })`: method, path, retries by
 * `repeat`, the answer's `data` member checked by its schema), `cnv api` retries by it, and the
 * emulator serves, gates and clamps by it (src/http/endpoint.ts says what each member means).
 * What the spec does not show is left out (the page of List fields).
 */
export const ENDPOINTS = {
  upsertContact: {
    method: 'POST',
    path: '/v2/contacts',
    repeat: 'safe',
    gated: false,
    sends: body<UpsertContactBody>(),
    answer: { schema: upsertResult },
  },
  getContact: {
    method: 'GET',
    path: '/v2/contacts',
    repeat: 'safe',
    gated: true,
    sends: query<ContactQuery>(),
    answer: { member: 'contact', schema: contactAnswer },
  },
  trackEvent: {
    method: 'POST',
    path: '/v2/events',
    repeat: { keyedBy: 'clientEventId' },
    gated: false,
    sends: body<TrackEventBody>(),
    answer: { schema: trackResult },
  },
  triggerWorkflow: {
    method: 'POST',
    path: '/v2/workflows/{workflowId}/trigger',
    repeat: 'unsafe',
    gated: false,
    sends: body<TriggerWorkflowBody>(),
    answer: { schema: triggerResult },
  },
  addToAudience: {
    method: 'POST',
    path: '/v2/audiences/{audienceId}/contacts',
    repeat: 'safe',
    gated: false,
    sends: body<ContactIdentifier>(),
    answer: { schema: addResult },
  },
  removeFromAudience: {
    method: 'DELETE',
    path: '/v2/audiences/{audienceId}/contacts',
    repeat: 'safe',
    gated: false,
    sends: body<ContactIdentifier>(),
    answer: { schema: removeResult },
  },
  batchAddToAudience: {
    method: 'POST',
    path: '/v2/audiences/{audienceId}/contacts/batch',
    repeat: 'safe',
    gated: true,
    items: { min: 1, max: 1000 },
    sends: contacts,
    answer: { member: 'results', schema: batchAddResults },
  },
  listCampaigns: {
    method: 'GET',
    path: '/v2/campaigns',
    repeat: 'safe',
    gated: false,
    page: { min: 1, max: 100 },
    sends: query<{ limit?: number; cursor?: string }>(),
    answer: { member: 'campaigns', schema: campaignListAnswer, paginated: true },
  },
  getCampaign: {
    method: 'GET',
    path: '/v2/campaigns/{campaignId}',
    repeat: 'safe',
    gated: false,
    answer: { member: 'campaign', schema: campaignAnswer },
  },
  addToCampaign: {
    method: 'POST',
    path: '/v2/campaigns/{campaignId}/contacts',
    repeat: 'safe',
    gated: false,
    sends: body<ContactIdentifier>(),
    answer: { schema: addResult },
  },
  batchAddToCampaign: {
    method: 'POST',
    path: '/v2/campaigns/{campaignId}/contacts/batch',
    repeat: 'safe',
    gated: true,
    items: { min: 1, max: 1000 },
    sends: contacts,
    answer: { member: 'results', schema: batchAddResults },
  },
  getForm: {
    method: 'GET',
    path: '/v2/forms/{formId}',
    repeat: 'safe',
    gated: false,
    answer: { member: 'form', schema: formAnswer },
  },
  createField: {
    method: 'POST',
    path: '/v2/fields',
    repeat: 'unsafe',
    gated: true,
    sends: body<CreateFieldBody>(),
    answer: { member: 'field', schema: fieldSchema },
  },
  // The default and maximum of List fields' limit: not shown (cnv sends --limit as given; the emulator chooses its own).
  listFields: {
    method: 'GET',
    path: '/v2/fields',
    repeat: 'safe',
    gated: false,
    sends: query<ListFieldsQuery>(),
    answer: { member: 'fields', schema: fieldListAnswer, paginated: true },
  },
  createRelationship: {
    method: 'POST',
    path: '/v2/fields/relationships',
    repeat: 'unsafe',
    gated: false,
    sends: body<{ source: RelationshipSide; target: RelationshipSide }>(),
    answer: { schema: relationshipResult },
  },
  upsertRecords: {
    method: 'POST',
    path: '/v2/custom-objects/{customObjectId}/records/batch',
    repeat: 'safe',
    gated: false,
    items: { min: 1, max: 200 },
    sends: body<{ records: RecordInput[] }>(),
    answer: { schema: recordsResult },
  },
  exportCustomEvents: {
    method: 'POST',
    path: '/v2/exports/custom-events',
    repeat: 'safe',
    gated: true,
    page: { min: 1, max: 1000, default: 1000 },
    sends: body<CustomEventsExportBody>(),
    answer: { member: 'events', row: eventRow },
  },
  exportEmailEvents: {
    method: 'POST',
    path: '/v2/exports/email-events',
    repeat: 'safe',
    gated: true,
    page: { min: 1, max: 5000, default: 1000 },
    sends: body<EmailEventsExportBody>(),
    answer: { member: 'events', row: eventRow },
  },
  exportContacts: {
    method: 'POST',
    path: '/v2/exports/contacts',
    repeat: 'safe',
    gated: true,
    page: { min: 1, max: 5000, default: 1000 },
    sends: body<ContactsExportBody>(),
    answer: { member: 'contacts', row: contactRow },
  },
} as const satisfies Record<string, Endpoint>;

/**
 * The endpoint a method and a path (without query) name, matching `{name}` segments; undefined for
 * a path the spec does not name.
 */
export function endpointOf(method: string, path: string): Endpoint | undefined {
  const segments = path.split('/');
  return Object.values(ENDPOINTS).find((e: Endpoint) => {
    if (e.method !== method) return false;
    const pattern = e.path.split('/');
    return (
      pattern.length === segments.length &&
      pattern.every((p, i) => (p.startsWith('{') ? segments[i] !== '' : p === segments[i]))
    );
  });
}

/** The spec's bound on one batch add request (the same for audiences and campaigns). */
export const MAX_BATCH_CONTACTS = ENDPOINTS.batchAddToAudience.items.max;

/** Records per batch request (the spec's limit). */
export const MAX_RECORDS_PER_BATCH = ENDPOINTS.upsertRecords.items.max;

/**
 * Page size bounds of each export (the API clamps to them; so does cnv, before sending). cnv
 * asks for the largest page unless `--limit` says otherwise (the API's own default is 1000):
 * every page is one request from the business's shared budget of 200 a second, and at 1,000
 * rows a page cnv's own limiter, not the transfer, set the pace of a large export.
 */
export const EXPORT_PAGE_LIMITS = {
  contacts: { max: ENDPOINTS.exportContacts.page.max, default: ENDPOINTS.exportContacts.page.max },
  'custom-events': { max: ENDPOINTS.exportCustomEvents.page.max, default: ENDPOINTS.exportCustomEvents.page.max },
  'email-events': { max: ENDPOINTS.exportEmailEvents.page.max, default: ENDPOINTS.exportEmailEvents.page.max },
} as const;
