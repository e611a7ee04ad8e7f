import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { tempConfigDir } from './cli.js';
import { emulatorFixture, type EmulatorFixture } from './emulator.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const page = (title: string, body = '') =>
  `<!DOCTYPE HTML>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n<h1>${title}</h1>\n${body}\n</body>\n</html>\n`;

const send = (
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
};

/** Bytes the endless answers wrote so far (all servers together): a client that stops reading bounds it. */
export const endlessBytes = { sent: 0 };

/** Writes `chunk` again and again until the client goes away (or `max` bytes went out). */
const endless = (res: ServerResponse, chunk: string, max = 4 * 1024 ** 3) => {
  const buf = Buffer.from(chunk);
  let sent = 0;
  const more = () => {
    while (sent < max && !res.destroyed) {
      sent += buf.length;
      endlessBytes.sent += buf.length;
      if (!res.write(buf)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => (sent = max));
  more();
};

/** How a server that is not the API (or a lying one) answers. */
export const behaviours = {
  /** Like `python3 -m http.server`: a listing at /, 404 pages for other GETs, 501 for POST. */
  staticFiles: ((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(
        res,
        501,
        'text/html;charset=utf-8',
        page('Error response', `<p>Error code: 501</p><p>Message: Unsupported method ('${req.method}').</p>`),
      );
    }
    if (req.url === '/')
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        page('Directory listing for /', '<ul><li><a href="notes.txt">notes.txt</a></li></ul>'),
      );
    return send(
      res,
      404,
      'text/html;charset=utf-8',
      page('Error response', '<p>Error code: 404</p><p>Message: File not found.</p>'),
    );
  }) as Handler,
  /** A web page for everything, 200. */
  html: ((_req, res) =>
    send(res, 200, 'text/html', page('Welcome to nginx!', '<p>' + 'lorem ipsum '.repeat(500) + '</p>'))) as Handler,
  /** 404 text for everything. */
  notFound: ((_req, res) => send(res, 404, 'text/plain', 'Not Found')) as Handler,
  /** A gateway whose upstream is gone. */
  badGateway: ((_req, res) =>
    send(res, 502, 'text/html', page('502 Bad Gateway', '<hr><center>nginx</center>'))) as Handler,
  /** Everything redirects (a login page, another host). */
  redirect: ((_req, res) =>
    send(res, 302, 'text/html', page('Found'), { location: 'https://login.example.com/sso?next=%2Fv2' })) as Handler,
  /** 200 JSON that is not the API's envelope. */
  otherJson: ((_req, res) =>
    send(res, 200, 'application/json', JSON.stringify({ status: 'ok', version: '1.2.3' }))) as Handler,
  /** A JSON answer that never ends (no Content-Length). */
  endlessJson: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":{"note":"');
    endless(res, 'x'.repeat(64 * 1024));
  }) as Handler,
  /** An export page whose one row never ends. */
  endlessRow: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":{"contacts":[{"cnvContactId":"');
    endless(res, 'y'.repeat(64 * 1024));
  }) as Handler,
  /** An error answer whose body never ends. */
  endlessError: ((_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    endless(res, '<p>' + 'z'.repeat(64 * 1024) + '</p>');
  }) as Handler,
  /** The API's error envelope, with terminal escape sequences in its code and message. */
  escapes: ((_req, res) =>
    send(
      res,
      400,
      'application/json',
      JSON.stringify({
        error: {
          code: 'bad\u001b[31mred',
          message: 'title \u001b]0;pwned\u0007 cr\rover\nhint: forged line \u202eevil\u009b2J',
        },
      }),
    )) as Handler,
  /** The API's error envelope echoing the key it was sent. */
  echoKey: ((req, res) =>
    send(
      res,
      400,
      'application/json',
      JSON.stringify({ error: { code: 'invalid_request', message: `bad key ${String(req.headers['x-api-key'])}` } }),
    )) as Handler,
  /** 429 asking for an 11.6-day wait. */
  retryAfterHuge: ((_req, res) =>
    send(res, 429, 'application/json', JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
      'retry-after': '999999',
    })) as Handler,
  /** 503 with a Retry-After date in the far future. */
  retryAfterFarDate: ((_req, res) =>
    send(res, 503, 'application/json', JSON.stringify({ error: { code: 'internal_error', message: 'maintenance' } }), {
      'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT',
    })) as Handler,
};

export interface HostileServer {
  url: string;
  /** Requests served so far. */
  requests: number;
  /** Changes how the server answers from now on. */
  use(handler: Handler): void;
  close(): Promise<void>;
}

/** A loopback HTTP server that answers as told (see `behaviours`), for tests against a wrong or lying server. */
export async function hostileServer(handler: Handler = behaviours.staticFiles): Promise<HostileServer> {
  let current = handler;
  const server = createServer((req, res) => {
    state.requests++;
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => current(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: HostileServer = {
    url: `http://127.0.0.1:${port}`,
    requests: 0,
    use: (h) => void (current = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** What the tests of a file share: a hostile server, an emulator, and the env of a run against the server. */
export interface HostileFixture {
  readonly server: HostileServer;
  readonly fx: EmulatorFixture;
  readonly env: Record<string, string>;
}

/** The API key of runs against the hostile server: a canary that no output may show. */
export const HOSTILE_KEY = 'sk_live_hostile_CANARYCANARY0123';

/**
 * For the tests of a file: a hostile server and an emulator, started once for the file and
 * closed after it, and the env of a cnv run against the server (a canary key, a config
 * directory of its own).
 */
export function useHostileServer(): HostileFixture {
  let current: HostileFixture | undefined;
  beforeAll(async () => {
    const [server, fx] = await Promise.all([hostileServer(), emulatorFixture()]);
    current = {
      server,
      fx,
      env: { CNV_BASE_URL: server.url, CNV_API_KEY: HOSTILE_KEY, CNV_CONFIG_DIR: tempConfigDir() },
    };
  });
  afterAll(async () => {
    if (current) await Promise.all([current.server.close(), current.fx.close()]);
  });
  return {
    get server() {
      return current!.server;
    },
    get fx() {
      return current!.fx;
    },
    get env() {
      return current!.env;
    },
  };
}
