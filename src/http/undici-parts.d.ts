// Types for the undici files cnv imports directly (src/http/undici.ts); their shapes are those
// undici's own typings give the same classes and functions.
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}

declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request, unbound: call it with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.connect, unbound. */
  const connect: Dispatcher['connect'];
  export default connect;
}
