import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DIST = resolve(import.meta.dirname, '../../dist');

let silent: Server;
const sockets = new Set<Socket>();
let url: string;
beforeAll(async () => {
  // Accepts connections, reads the request, never answers.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => silent.close(done));
});

describe('the per-attempt time limit against a server that never answers', () => {
  it('fires even when the garbage collector runs meanwhile (a timeout signal held weakly was collected: 300 s instead of --timeout)', async () => {
    // The built HttpClient in a process that collects garbage every 50 ms while it waits.
    const script = `
      import { z } from 'zod';
      import { HttpClient } from '${DIST}/http/client.js';
      import { createAgent } from '${DIST}/http/agent.js';
      import { RateLimiter } from '${DIST}/http/rate-limiter.js';
      import { silentLogger } from '${DIST}/http/logger.js';
      import { systemClock } from '${DIST}/clock.js';
      const gc = setInterval(() => globalThis.gc(), 50);
      const client = new HttpClient({
        baseUrl: ${JSON.stringify(url)}, apiKey: 'sk_live_test_abcdefgh', dispatcher: createAgent(500),
        limiter: new RateLimiter({ ratePerSecond: 10, burst: 1, clock: systemClock }), clock: systemClock,
        logger: silentLogger, maxAttempts: 1, timeoutMs: 500,
      });
      const interrupt = new AbortController(); // as the CLI's Ctrl-C signal
      const started = Date.now();
      const outcome = await client.request({ method: 'GET', path: '/v2/contacts', data: z.unknown(), idempotency: 'safe', signal: interrupt.signal }).then(() => 'answered', (err) => err.code);
      clearInterval(gc);
      console.log(JSON.stringify({ outcome, ms: Date.now() - started, interrupted: interrupt.signal.aborted }));
      process.exit(0);
    `;
    const res = await execa('node', ['--expose-gc', '--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../..'),
      reject: false,
      timeout: 15_000,
    });
    expect(res.timedOut, 'the request was still waiting after 15 s').toBe(false);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout).outcome).toBe('network_error');
  });
});
