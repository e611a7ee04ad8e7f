import { useConfigCredentials } from '../../cmdutil/singer-plugin.js';
import type { Context } from '../../context.js';
import { readJsonDocument } from '../../singer/json-file.js';
import { targetConfig, type TargetConfig } from '../../target/target-config.js';

/**
 * The target's config file read, and its key and URL (or those of the cnv profile it names) made
 * the run's credentials (src/cmdutil/singer-plugin.ts); max_retries and timeout_ms are the
 * client's choice. The client shares the account's rate with every other cnv process of this
 * machine (src/http/rate-share.ts): a tap and a target of one account split it.
 */
export async function targetConfigOf(ctx: Context, path: string): Promise<TargetConfig> {
  const config = targetConfig(await readJsonDocument('--config', path, ctx.signal), path, ctx.warn);
  await useConfigCredentials(ctx, path, config);
  // Resolved now: a bad key or URL stops the run before stdin is read (the warnings name the settings).
  await ctx.credentials();
  return config;
}
