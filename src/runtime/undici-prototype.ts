import { DispatcherBase, dispatcherConnect, dispatcherRequest } from '../http/undici.js';

/**
 * Attaches `connect` and `request` to undici's Dispatcher.prototype, as undici's index does on
 * import (cnv imports undici by file, without its index: src/http/undici.ts). The proxy agent
 * tunnels through a client's `connect()`, so this must be done before a proxy agent is used
 * (HTTPS_PROXY / HTTP_PROXY). Required wiring, not tuning: CNV_RUNTIME_TUNING=off leaves it on.
 * Idempotent; src/http/agent.ts calls it before it makes the agent.
 */
export function wireUndiciDispatcher(): void {
  const proto = DispatcherBase.prototype as { connect?: unknown; request?: unknown };
  proto.connect ??= dispatcherConnect;
  proto.request ??= dispatcherRequest;
}
