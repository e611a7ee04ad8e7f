// undici's EnvHttpProxyAgent reads the proxy variables from process.env when an agent is built,
// so an in-process run would otherwise send test traffic through a developer's proxy.
// Tests that want a proxy (test/e2e/proxy.test.ts) pass it to the spawned binary's env.
import { PROXY_VARIABLES } from '../helpers/proxy-env.js';

for (const name of PROXY_VARIABLES) delete process.env[name];
