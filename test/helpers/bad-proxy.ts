import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** How the proxy answers a CONNECT. */
export type ProxyBehaviour =
  /** `200` with a body, then closes (a captive portal, a broken appliance). */
  | 'body-then-close'
  /** Accepts the connection and never says a word. */
  | 'silent'
  /** `502 Bad Gateway`, as a proxy whose upstream is down. */
  | 'bad-gateway'
  /** `407 Proxy Authentication Required`, as a corporate proxy that wants credentials. */
  | 'auth-required';

/** A misbehaving forward proxy on a random local port: counts the CONNECTs it was sent. */
export async function badProxy(behaviour: ProxyBehaviour) {
  const sockets = new Set<Socket>();
  let connects = 0;
  const waiters: Array<() => void> = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (data) => {
      if (!data.toString('latin1').startsWith('CONNECT ')) return;
      connects++;
      waiters.splice(0).forEach((w) => w());
      if (behaviour === 'body-then-close') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
      if (behaviour === 'bad-gateway') socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      if (behaviour === 'auth-required')
        socket.end(
          'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    /** The same proxy, its URL holding a user and password (never to be shown). */
    urlWithCredentials: (user: string, password: string) => `http://${user}:${password}@127.0.0.1:${port}`,
    connects: () => connects,
    /** Resolves once a CONNECT has come. */
    connected: () => (connects > 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
