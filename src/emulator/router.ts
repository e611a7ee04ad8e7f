import type { Endpoint } from '../http/endpoint.js';
import type { FaultController } from './faults.js';
import type { KeyInfo, Permission } from './keys.js';
import type { BusinessRateLimiter } from './business-rate-limiter.js';
import type { Stats } from './stats.js';
import type { BusinessStore, EmulatorStore } from './store.js';

/** What a handler answers; status defaults to 200. */
export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Everything a /v2 handler gets. `store` is the caller's business only. */
export interface ApiContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON object body; `{}` when the request had no body. */
  body: Record<string, unknown>;
  account: {
    id: string;
    name: string;
  };
  key: KeyInfo;
  store: BusinessStore;
}

/** Everything an /_emulator admin handler gets (no API key involved). */
export interface AdminContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  store: EmulatorStore;
  faults: FaultController;
  stats: Stats;
  rateLimiter: BusinessRateLimiter;
}

/** Checks the server applies before a /v2 handler runs. */
interface ApiRouteOptions {
  /** Endpoint must be enabled for the account (else 403 export_not_enabled). */
  gated?: boolean;
  /** Key must hold this permission (else 403 forbidden). */
  permission?: Permission;
}

type Handler<C> = (ctx: C) => RouteResult | Promise<RouteResult>;

interface Route<C, O> {
  method: string;
  pattern: string;
  handler: Handler<C>;
  options: O;
  segments: string[];
  staticCount: number;
}

type MatchResult<C, O> =
  | { kind: 'found'; route: Route<C, O>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; pattern: string; allowed: string[] }
  | { kind: 'not_found' };

/**
 * A tiny method + path router. Patterns use `:name` segments, e.g. `/v2/contacts/:id`.
 * When several patterns match a path, the one with more literal segments wins.
 */
export class Router<C, O = Record<string, never>> {
  private readonly routes: Route<C, O>[] = [];

  add(method: string, pattern: string, handler: Handler<C>, options?: O): this {
    const segments = splitPath(pattern);
    const staticCount = segments.filter((s) => !s.startsWith(':')).length;
    this.routes.push({
      method: method.toUpperCase(),
      pattern,
      handler,
      options: options ?? ({} as O),
      segments,
      staticCount,
    });
    return this;
  }

  match(method: string, path: string): MatchResult<C, O> {
    const parts = splitPath(path);
    let best: { route: Route<C, O>; params: Record<string, string> } | undefined;
    const allowed = new Set<string>();
    let pathPattern: string | undefined;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      allowed.add(route.method);
      pathPattern ??= route.pattern;
      if (route.method !== method.toUpperCase()) continue;
      if (!best || route.staticCount > best.route.staticCount) best = { route, params };
    }
    if (best) return { kind: 'found', ...best };
    if (pathPattern) return { kind: 'method_not_allowed', pattern: pathPattern, allowed: [...allowed] };
    return { kind: 'not_found' };
  }
}

/** The router type /v2 route modules register on. */
export type ApiRouter = Router<ApiContext, ApiRouteOptions>;
/** The router type admin route modules register on. */
export type AdminRouter = Router<AdminContext>;

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) params[p.slice(1)] = safeDecode(parts[i]);
    else if (p !== parts[i]) return undefined;
  }
  return params;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Serves one endpoint of the client's table (src/endpoints/endpoints.ts) at its method and path,
 * gated as the table says, so the emulator and cnv never disagree on a route.
 */
export function serve(
  router: ApiRouter,
  endpoint: Pick<Endpoint, 'method' | 'path' | 'gated'>,
  handler: Handler<ApiContext>,
  options: Omit<ApiRouteOptions, 'gated'> = {},
): void {
  // The table writes a path parameter as the spec does, `{name}`; the router's patterns, `:name`.
  router.add(
    endpoint.method,
    endpoint.path.replace(/\{(\w+)\}/g, ':$1'),
    handler,
    endpoint.gated ? { ...options, gated: true } : options,
  );
}
