import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import { queryParam } from '../validate.js';
import { businessOf, ok } from './admin.js';

/** Admin state of custom objects and their records (for tests and demos). */
export function recordAdminRoutes(router: AdminRouter): void {
  router.add('GET', '/_emulator/state/custom-objects', (ctx) => ok(structuredClone([...businessOf(ctx).customObjects.values()])));
  router.add('GET', '/_emulator/state/records', stateRecords);
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
  return ok(structuredClone(records));
}
