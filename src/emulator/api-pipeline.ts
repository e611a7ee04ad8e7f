import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertEnabled, assertPermission, authenticate } from './auth.js';
import { EmulatorError } from './error-answer.js';
import { rateLimited, type FaultController } from './faults.js';
import {
  assertJsonContentType,
  dropConnection,
  errorResult,
  parseJsonObject,
  readBody,
  sendJson,
  sleep,
} from './http-io.js';
import type { BusinessRateLimiter } from './business-rate-limiter.js';
import type { ApiRouter, RouteResult } from './router.js';
import type { Stats } from './stats.js';
import type { EmulatorStore } from './store.js';

export interface ApiDeps {
  router: ApiRouter;
  store: EmulatorStore;
  faults: FaultController;
  stats: Stats;
  rateLimiter: BusinessRateLimiter;
  log: (line: string) => void;
}

/**
 * Serves one /v2 request. Order: read body, latency, injected faults, auth (401),
 * rate limit (429), route (404/405), enablement (403), permission (403), JSON body and its
 * content type (400),
 * handler; then an optional drop-after fault.
 */
export async function handleApiRequest(
  deps: ApiDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<number | 'dropped'> {
  const method = (req.method ?? 'GET').toUpperCase();
  const match = deps.router.match(method, url.pathname);
  const routeKey =
    match.kind === 'not_found'
      ? `${method} (unmatched)`
      : `${method} ${match.kind === 'found' ? match.route.pattern : match.pattern}`;
  const finish = (outcome: number | 'dropped'): number | 'dropped' => {
    deps.stats.record(routeKey, outcome);
    return outcome;
  };

  deps.stats.start(routeKey);
  const raw = await readBody(req);
  if (deps.faults.latencyMs > 0) await sleep(deps.faults.latencyMs);
  const fault = deps.faults.before();
  if (fault.kind === 'drop') {
    dropConnection(req, res);
    return finish('dropped');
  }
  if (fault.kind === 'error') return finish(sendJson(res, errorResult(fault.error, deps.log)));

  let result: RouteResult;
  try {
    const key = authenticate(req.headers['x-api-key']);
    if (!deps.rateLimiter.take(key.businessId)) {
      throw rateLimited(1, `Rate limit exceeded: ${deps.rateLimiter.rate} requests per second`);
    }
    if (match.kind === 'not_found') throw new EmulatorError(404, 'not_found', `No route for ${method} ${url.pathname}`);
    if (match.kind === 'method_not_allowed') {
      throw new EmulatorError(405, 'method_not_allowed', `Method ${method} is not allowed on ${match.pattern}`, {
        allow: match.allowed.join(', '),
      });
    }
    const { route, params } = match;
    if (route.options.gated) assertEnabled(key);
    if (route.options.permission) assertPermission(key, route.options.permission);
    const store = deps.store.business(key.businessId);
    assertJsonContentType(req.headers['content-type'], raw);
    result = await route.handler({
      params,
      query: url.searchParams,
      body: parseJsonObject(raw),
      account: { id: store.id, name: store.name },
      key,
      store,
    });
  } catch (err) {
    result = errorResult(err, deps.log);
  }

  // dropAfterNext: the request was handled (state changed) but the client never hears back.
  if (deps.faults.takeDropAfter()) {
    dropConnection(req, res);
    return finish('dropped');
  }
  // cutBodyNext: the answer starts (status, headers, half the body), then the socket drops.
  if (deps.faults.takeCutBody()) {
    sendJson(res, result, true);
    return finish('dropped');
  }
  return finish(sendJson(res, result));
}
