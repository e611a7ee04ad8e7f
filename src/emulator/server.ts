import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApiRequest, type ApiDeps } from './api-pipeline.js';
import { checkAdminRequest } from './admin-guard.js';
import { EmulatorError, errorBody } from './error-answer.js';
import { errorResult, parseJsonObject, readBody, sendJson } from './http-io.js';
import type { AdminRouter, RouteResult } from './router.js';
import { HEALTH_PATH } from './routes/health.js';
import { escapeControl } from '../lib/terminal-text.js';

interface ServerDeps extends ApiDeps {
  adminRouter: AdminRouter;
  verbose: boolean;
  /** The emulator listens beyond loopback: admin requests may then name an IP address as Host. */
  listensBeyondLoopback?: boolean;
}

/**
 * The node:http server: /v2/* goes through the API pipeline, /_emulator/* to the admin
 * router (no key, no faults, not counted; loopback Host and JSON bodies only, see
 * admin-guard.ts), anything else is 404 not_found.
 */
export function createEmulatorServer(deps: ServerDeps): Server {
  const server = createServer({ keepAlive: true }, (req, res) => {
    const started = performance.now();
    dispatch(deps, req, res)
      .then((outcome) => {
        if (deps.verbose) deps.log(requestLine(req, outcome, performance.now() - started));
      })
      .catch((err: unknown) => {
        // Only reachable when the socket broke mid-answer; nothing left to tell the client.
        deps.log(`emulator: request failed: ${String(err)}`);
        if (!res.headersSent) res.destroy();
      });
  });
  // Longer than common client keep-alive timeouts, so the client closes idle sockets first.
  server.keepAliveTimeout = 10_000;
  return server;
}

/** The --verbose line of one request: method, path and query, status (or `dropped`), time; escaped. */
export function requestLine(
  req: Pick<IncomingMessage, 'method' | 'url'>,
  outcome: number | 'dropped',
  ms: number,
): string {
  return escapeControl(`emulator: ${req.method ?? '?'} ${req.url ?? '/'} ${outcome} ${ms.toFixed(1)}ms`);
}

/** Starts listening; resolves with the bound address. */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Stops accepting, closes idle keep-alive and in-flight sockets, resolves when closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

async function dispatch(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<number | 'dropped'> {
  const url = new URL(req.url ?? '/', 'http://emulator.local');
  if (url.pathname === '/v2' || url.pathname.startsWith('/v2/')) return handleApiRequest(deps, req, res, url);
  if (url.pathname.startsWith('/_emulator/')) return handleAdminRequest(deps, req, res, url);
  await readBody(req);
  return sendJson(res, { status: 404, body: errorBody('not_found', `No route for ${req.method} ${url.pathname}`) });
}

async function handleAdminRequest(
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<number> {
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  let result: RouteResult;
  try {
    // The health probe tells nothing and changes nothing: a container check may use any Host.
    if (!(method === 'GET' && url.pathname === HEALTH_PATH))
      checkAdminRequest(req, method, deps.listensBeyondLoopback ?? false);
    const match = deps.adminRouter.match(method, url.pathname);
    if (match.kind === 'not_found') throw new EmulatorError(404, 'not_found', `No admin route ${url.pathname}`);
    if (match.kind === 'method_not_allowed') {
      throw new EmulatorError(405, 'method_not_allowed', `Method ${method} is not allowed on ${match.pattern}`, {
        allow: match.allowed.join(', '),
      });
    }
    result = await match.route.handler({
      params: match.params,
      query: url.searchParams,
      body: parseJsonObject(raw),
      store: deps.store,
      faults: deps.faults,
      stats: deps.stats,
      rateLimiter: deps.rateLimiter,
    });
  } catch (err) {
    result = errorResult(err, deps.log);
  }
  return sendJson(res, result);
}
