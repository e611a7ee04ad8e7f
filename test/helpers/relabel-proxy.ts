import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorFixture } from './emulator.js';

// Labels that change while a run reads: a proxy in front of the emulator that relabels fields
// (the emulator's admin route, as the dashboard would) once, right after the n-th page of the
// contacts export was read from the emulator and before it reaches the client. Every page the
// client asks for after it is served under the new labels (test/e2e/export-field-drift.test.ts).

export interface RelabelProxy {
  /** The base URL to give cnv (CNV_BASE_URL, or the tap's base_url). */
  url: string;
  /** Contacts export pages served so far, and GET /v2/fields answered. */
  pages(): number;
  fieldLists(): number;
  close(): Promise<void>;
}

/** `relabels`: [field key, new label] pairs, applied in order after page `afterPage` (1-based). */
export async function relabelProxy(
  fx: EmulatorFixture,
  afterPage: number,
  relabels: ReadonlyArray<readonly [string, string]>,
): Promise<RelabelProxy> {
  let pages = 0;
  let lists = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && !['host', 'connection', 'content-length', 'accept-encoding'].includes(name))
            headers[name] = value;
        const upstream = await fetch(fx.emulator.url + req.url, {
          method: req.method,
          headers,
          body: body.length > 0 ? body : undefined,
        });
        const answer = Buffer.from(await upstream.arrayBuffer());
        if (req.method === 'GET' && req.url?.startsWith('/v2/fields')) lists++;
        if (req.method === 'POST' && req.url?.startsWith('/v2/exports/contacts') && upstream.status === 200) {
          if (++pages === afterPage)
            for (const [key, label] of relabels) await fx.admin('POST', `/_emulator/fields/${key}`, { label });
        }
        const out: Record<string, string> = {
          'content-type': upstream.headers.get('content-type') ?? 'application/json',
        };
        const retry = upstream.headers.get('retry-after');
        if (retry) out['retry-after'] = retry;
        res.writeHead(upstream.status, out);
        res.end(answer);
      } catch (err) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pages: () => pages,
    fieldLists: () => lists,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
