import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { EmulatorError } from './error-answer.js';

const LOOPBACK_NAME = /^(localhost|127(\.\d{1,3}){3}|::1)$/i;

/** Whether an interface to listen on is loopback only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAME.test(host.replace(/^\[|\]$/g, ''));
}

/**
 * Admin routes take no key, so a web page the user opens must not reach them: a cross-site form
 * or `fetch` can send a POST with a text/plain body, and a DNS-rebound name can point at
 * 127.0.0.1. So an admin request must be addressed to a loopback host (or, when the emulator
 * listens beyond loopback, to an IP address: a rebinding attack needs a name), and one that may
 * change something must say `Content-Type: application/json`, which a page cannot send cross-site
 * without a CORS preflight that the emulator never grants.
 */
export function checkAdminRequest(req: IncomingMessage, method: string, listensBeyondLoopback: boolean): void {
  const hostname = hostOf(req.headers.host);
  const allowed =
    hostname !== undefined && (isLoopbackHost(hostname) || (listensBeyondLoopback && isIP(hostname) !== 0));
  if (!allowed) {
    const orIp = listensBeyondLoopback ? ' or an IP address' : '';
    throw new EmulatorError(
      403,
      'forbidden_host',
      `Admin routes answer only requests addressed to a loopback host (localhost, 127.0.0.1, [::1])${orIp}; ` +
        `got Host: ${JSON.stringify(req.headers.host ?? '')}`,
    );
  }
  if (method === 'GET' || method === 'HEAD') return;
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/json') {
    throw new EmulatorError(
      415,
      'unsupported_media_type',
      `Admin ${method} requests need Content-Type: application/json; got ${JSON.stringify(type || '(none)')}`,
    );
  }
}

function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bracketed = /^\[([^\]]+)\](:\d+)?$/.exec(header);
  if (bracketed) return bracketed[1];
  const parts = header.split(':');
  return parts.length <= 2 ? parts[0] : undefined;
}
