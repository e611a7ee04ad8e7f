import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { accountIdentity } from '../../config/account-identity.js';
import { readTapConfig, type TapConfig } from '../../tap/config.js';
import type { TapDeps } from '../../tap/run-deps.js';

/**
 * The tap's inputs from its config file: the key and URL it names (or those of the cnv profile
 * it names) become the run's credentials, as --api-key and --base-url would, so nothing comes
 * from CNV_API_KEY or CNV_BASE_URL; its max_retries and timeout_ms are the client's choice.
 * Messages about them name the settings (`api_key of --config FILE`), never cnv's flags.
 */
export async function tapDepsOf(ctx: Context, path: string): Promise<{ tap: TapDeps; config: TapConfig }> {
  const config = await readTapConfig(path, (m) => ctx.warn(m), ctx.signal);
  let { apiKey, baseUrl } = config;
  const setting = (name: string) => `${name} of --config ${path}`;
  const sources = { apiKey: setting('api_key'), baseUrl: setting('base_url') };
  if (config.profile !== undefined && (apiKey === undefined || baseUrl === undefined)) {
    const saved = (await ctx.config()).profile(config.profile);
    if (!saved)
      throw new UsageError(
        `--config ${path}: profile: no cnv profile named "${config.profile}"`,
        'see `cnv config list`',
        'unknown_profile',
      );
    const fromProfile = `cnv profile "${config.profile}" (profile of --config ${path})`;
    if (apiKey === undefined) [apiKey, sources.apiKey] = [saved.apiKey, fromProfile];
    if (baseUrl === undefined) [baseUrl, sources.baseUrl] = [saved.baseUrl, fromProfile];
  }
  if (apiKey === undefined || baseUrl === undefined) {
    throw new UsageError(
      `--config ${path}: profile "${config.profile}" has no ${apiKey === undefined ? 'API key' : 'base URL'}; give ${apiKey === undefined ? 'api_key' : 'base_url'} in the config`,
    );
  }
  ctx.useCredentials({ apiKey, baseUrl, sources });
  const http = await ctx.http({
    ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    ...(config.timeoutMs === undefined ? {} : { timeout: config.timeoutMs }),
  });
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
