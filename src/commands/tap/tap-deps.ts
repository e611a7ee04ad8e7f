import { clientChoiceOf, useConfigCredentials } from '../../cmdutil/singer-plugin.js';
import type { Context } from '../../context.js';
import { accountIdentity } from '../../config/account-identity.js';
import { readTapConfig, type TapConfig } from '../../tap/config.js';
import type { TapDeps } from '../../tap/run-deps.js';

/**
 * The tap's inputs from its config file: the key and URL it names (or those of the cnv profile
 * it names) become the run's credentials (src/cmdutil/singer-plugin.ts); its max_retries and
 * timeout_ms are the client's choice.
 */
export async function tapDepsOf(ctx: Context, path: string): Promise<{ tap: TapDeps; config: TapConfig }> {
  const config = await readTapConfig(path, (m) => ctx.warn(m), ctx.signal);
  await useConfigCredentials(ctx, path, config);
  const http = await ctx.http(clientChoiceOf(config));
  const credentials = await ctx.credentials();
  const tap: TapDeps = {
    http,
    account: accountIdentity(credentials.baseUrl, credentials.apiKey),
    signal: ctx.signal,
    stdout: ctx.io.stdout,
    now: () => ctx.clock.now(),
    holdHeap: ctx.tuning && (() => ctx.tuning!.holdHeap()),
    warn: (m) => ctx.warn(m),
    info: (m) => ctx.info(m),
  };
  return { tap, config };
}
