import { Router, type AdminRouter, type ApiRouter } from '../router.js';
import { adminRoutes } from './admin.js';
import { audienceRoutes } from './audiences.js';
import { campaignRoutes } from './campaigns.js';
import { contactRoutes } from './contacts.js';
import { eventRoutes } from './events.js';
import { exportAdminRoutes } from './exports-admin.js';
import { exportRoutes } from './exports.js';
import { relationshipRoutes } from './field-relationships.js';
import { fieldAdminRoutes } from './fields-admin.js';
import { fieldRoutes } from './fields.js';
import { formRoutes } from './forms.js';
import { healthRoutes } from './health.js';
import { membershipAdminRoutes } from './membership-admin.js';
import { recordAdminRoutes } from './records-admin.js';
import { recordRoutes } from './records.js';
import { workflowRoutes } from './workflows.js';

/** A module that registers /v2 routes. */
type ApiRouteModule = (router: ApiRouter) => void;
/** A module that registers /_emulator admin routes. */
type AdminRouteModule = (router: AdminRouter) => void;

/** /v2 route modules: add one line per resource file. */
const API_ROUTE_MODULES: ApiRouteModule[] = [
  contactRoutes,
  eventRoutes,
  workflowRoutes,
  audienceRoutes,
  campaignRoutes,
  formRoutes,
  fieldRoutes,
  relationshipRoutes,
  recordRoutes,
  exportRoutes,
];

/** Admin route modules: add one line per admin file. */
const ADMIN_ROUTE_MODULES: AdminRouteModule[] = [
  healthRoutes,
  adminRoutes,
  recordAdminRoutes,
  membershipAdminRoutes,
  exportAdminRoutes,
  fieldAdminRoutes,
];

export function buildApiRouter(): ApiRouter {
  const router: ApiRouter = new Router();
  for (const register of API_ROUTE_MODULES) register(router);
  return router;
}

export function buildAdminRouter(): AdminRouter {
  const router: AdminRouter = new Router();
  for (const register of ADMIN_ROUTE_MODULES) register(router);
  return router;
}
