import { EmulatorError } from '../error-answer.js';
import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { businessOf, ok } from './admin.js';
import { cloneJson } from '../../lib/exact-number.js';

/**
 * Admin routes for audiences, campaigns and workflows: archiving a campaign (not an API
 * operation) and state inspection, so tests can check that a contact was added exactly once.
 */
export function membershipAdminRoutes(router: AdminRouter): void {
  router.add('POST', '/_emulator/campaigns/:id/archive', (ctx) => setArchived(ctx, true));
  router.add('POST', '/_emulator/campaigns/:id/unarchive', (ctx) => setArchived(ctx, false));
  router.add('GET', '/_emulator/state/audiences', (ctx) =>
    ok([...businessOf(ctx).audiences.values()].map((a) => ({ id: a.id, name: a.name, memberCount: a.memberIds.size }))),
  );
  router.add('GET', '/_emulator/state/audiences/:id', (ctx) => {
    const a = found(businessOf(ctx).audiences.get(ctx.params.id), 'audience', ctx.params.id);
    return ok({ id: a.id, name: a.name, memberIds: [...a.memberIds] });
  });
  router.add('GET', '/_emulator/state/campaigns/:id', (ctx) => {
    const c = found(businessOf(ctx).campaigns.get(ctx.params.id), 'campaign', ctx.params.id);
    const members = [...c.members].map(([contactId, statusId]) => ({ contactId, statusId }));
    return ok({ id: c.id, name: c.name, typeId: c.typeId, archived: c.archived, members });
  });
  router.add('GET', '/_emulator/state/workflows/:id', (ctx) => {
    const w = found(businessOf(ctx).workflows.get(ctx.params.id), 'workflow', ctx.params.id);
    return ok(
      cloneJson({ id: w.id, name: w.name, apiTriggered: w.apiTriggered, active: w.active, triggers: w.triggers }),
    );
  });
}

function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new EmulatorError(404, `${what}_not_found`, `No ${what} ${id}`);
  return value;
}

// Campaign ids are unique across businesses, so archiving looks in all of them.
function setArchived({ store, params }: AdminContext, archived: boolean): RouteResult {
  for (const id of store.businessIds()) {
    const business: BusinessStore = store.business(id);
    const campaign = business.campaigns.get(params.id);
    if (campaign) {
      campaign.archived = archived;
      return ok({ id: campaign.id, archived, business: id });
    }
  }
  throw new EmulatorError(404, 'campaign_not_found', `No campaign ${params.id}`);
}
