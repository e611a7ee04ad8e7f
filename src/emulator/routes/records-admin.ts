import { randomUUID } from 'node:crypto';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { KEYED_TARGET_TYPES, type KeyedTargetType } from '../keyed-targets.js';
import type { CustomObjectRecord } from '../model.js';
import { linksOf, settlePending } from '../relationships.js';
import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { isUuid, queryParam } from '../validate.js';
import { businessOf, ok } from './admin.js';
import { cloneJson } from '../../lib/exact-number.js';

/** Admin state of custom objects, their records and the keyed relationship targets (for tests and demos). */
export function recordAdminRoutes(router: AdminRouter): void {
  router.add('GET', '/_emulator/state/custom-objects', (ctx) =>
    ok(cloneJson([...businessOf(ctx).customObjects.values()])),
  );
  router.add('GET', '/_emulator/state/records', stateRecords);
  router.add('GET', '/_emulator/state/targets', stateTargets);
  router.add('POST', '/_emulator/targets', addTarget);
}

/** Records in insertion order, optionally of one custom object and one clientDedupKey. */
function stateRecords(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const customObjectId = queryParam(ctx.query, 'customObjectId')?.toLowerCase();
  const clientDedupKey = ctx.query.get('clientDedupKey') ?? undefined;
  const records = [...business.records.entries()]
    .filter(([id]) => customObjectId === undefined || id === customObjectId)
    .flatMap(([, byKey]) => [...byKey.values()])
    .filter((r) => clientDedupKey === undefined || r.clientDedupKey === clientDedupKey);
  return ok(records.map((r) => recordState(business, r)));
}

/** Keyed targets with their reverse relationship values (a company's are in the company). */
function stateTargets(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const type = queryParam(ctx.query, 'objectType')?.toUpperCase();
  const list = business.targets.list().filter((t) => type === undefined || t.objectType === type);
  return ok(
    list.map((t) => ({
      ...cloneJson(t),
      fields: { ...(t.objectType === 'COMPANY' ? business.companies.get(t.id)?.fields : t.fields) },
    })),
  );
}

function recordState(business: BusinessStore, r: CustomObjectRecord): Record<string, unknown> {
  const { relationships, pending } = linksOf(business, r.id);
  return { ...cloneJson(r), pendingRelationships: pending, relationships };
}

/**
 * Registers the clientDedupKey of a company, opportunity, campaign or campaign member (no API
 * creates them; the spec's batch upsert never does): relationships pending on that key resolve.
 * COMPANY: `id` of an existing company, or none for a new empty company. CAMPAIGN: `id` of an
 * existing campaign (required). OPPORTUNITY, CAMPAIGN_MEMBER: `id` optional (a new UUID).
 */
function addTarget(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const { objectType, clientDedupKey, id } = ctx.body;
  const type =
    typeof objectType === 'string' ? KEYED_TARGET_TYPES.find((t) => t === objectType.toUpperCase()) : undefined;
  if (!type) throw invalidRequest(`objectType must be one of ${KEYED_TARGET_TYPES.join(', ')}`);
  if (typeof clientDedupKey !== 'string' || clientDedupKey === '')
    throw invalidRequest('clientDedupKey is required (a non-empty string)');
  if (id !== undefined && (typeof id !== 'string' || !isUuid(id))) throw invalidRequest('id must be a UUID');
  const targetId = resolveTargetId(business, type, id as string | undefined);
  const target = business.targets.add({
    objectType: type,
    id: targetId,
    clientDedupKey,
    fields: {},
    createdAt: business.clock.now(),
  });
  settlePending(business, type, [clientDedupKey]);
  return ok(cloneJson(target));
}

function resolveTargetId(business: BusinessStore, type: KeyedTargetType, id: string | undefined): string {
  if (type === 'CAMPAIGN') {
    if (!id || !business.campaigns.has(id))
      throw new EmulatorError(404, 'campaign_not_found', 'CAMPAIGN needs the id of an existing campaign');
    return id;
  }
  if (type === 'COMPANY') {
    if (id !== undefined) {
      if (!business.companies.has(id)) throw new EmulatorError(404, 'not_found', `No company ${id}`);
      return id;
    }
    const now = business.clock.now();
    const company = { id: randomUUID(), fields: {}, createdAt: now, updatedAt: now };
    business.companies.set(company.id, company);
    return company.id;
  }
  return id ?? randomUUID();
}
