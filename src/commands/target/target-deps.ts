import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readJsonDocument } from '../../tap/json-file.js';
import { targetConfig, type TargetConfig } from '../../target/target-config.js';

/**
 * The target's config file read, and its key and URL (or those of the cnv profile it names) made
 * the run's credentials, as --api-key and --base-url would, so nothing comes from CNV_API_KEY or
 * CNV_BASE_URL (the config is the whole input, as Meltano expects); max_retries and timeout_ms are
 * the client's choice. The client shares the account's rate with every other cnv process of this
 * machine (src/http/rate-share.ts): a tap and a target of one account split it.
 */
export async function targetConfigOf(ctx: Context, path: string): Promise<TargetConfig> {
  const config = targetConfig(await readJsonDocument('--config', path), path);
  let { apiKey, baseUrl } = config;
  if (config.profile !== undefined && (apiKey === undefined || baseUrl === undefined)) {
    const saved = (await ctx.config()).profile(config.profile);
    if (!saved)
      throw new UsageError(
        `--config ${path}: profile: no cnv profile named "${config.profile}"`,
        'see `cnv config list`',
        'unknown_profile',
      );
    apiKey ??= saved.apiKey;
    baseUrl ??= saved.baseUrl;
  }
  if (apiKey === undefined || baseUrl === undefined)
    throw new UsageError(
      `--config ${path}: profile "${config.profile}" has no ${apiKey === undefined ? 'API key' : 'base URL'}; give ${apiKey === undefined ? 'api_key' : 'base_url'} in the config`,
    );
  ctx.useCredentials({ apiKey, baseUrl });
  const credentials = await ctx.credentials();
  for (const warning of credentials.warnings) ctx.warn(warning.replace('--api-key', `api_key of --config ${path}`));
  return config;
}
