/** The variables undici's EnvHttpProxyAgent reads, in both spellings. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((name) => [
  name,
  name.toLowerCase(),
]);
