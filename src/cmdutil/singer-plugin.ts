import { z } from 'zod';
import type { ClientChoice, Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandResult } from '../output/render.js';
import { writeWithBackpressure } from '../output/write.js';
import { aboutMarkdown } from '../singer/singer-about.js';
import type { PluginClientConfig } from '../singer/singer-settings.js';

// What cnv's Singer plugins (`cnv tap`, `cnv target`) share as commands: --about, --config and
// the client their config sets up.

/** A plugin's name as its messages say it, and its docs page. */
interface Plugin {
  noun: 'tap' | 'target';
  docs: string;
}

/**
 * The last checks of a plugin's options: -o/--format only with --about (json or markdown), and
 * --config unless --about.
 */
export function checkPluginOptions(
  opts: { about?: boolean; config?: string; format?: string },
  { noun, docs }: Plugin,
): void {
  if (opts.format !== undefined && (!opts.about || (opts.format !== 'json' && opts.format !== 'markdown')))
    throw new UsageError(`--format ${opts.format}: the ${noun}'s own document is --about's, as json or markdown`);
  if (!opts.about && opts.config === undefined)
    throw new UsageError(
      '--config: required (a JSON file with api_key and base_url)',
      `see \`cnv ${noun} --about\` for the settings, ${docs} for a config`,
    );
}

/** The --about document a plugin's JSON OUTPUT declares. */
export const aboutOutput = (what: string) => ({
  when: 'with --about',
  what,
  schema: z.looseObject({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    capabilities: z.array(z.string()),
    settings: z.looseObject({}),
  }),
});

/** --about: the plugin's document on stdout, as JSON, or with --format markdown the SDK's table. */
export async function writeAbout(
  ctx: Context,
  about: Record<string, unknown>,
  format: string | undefined,
): Promise<CommandResult> {
  const text = format === 'markdown' ? aboutMarkdown(about) : JSON.stringify(about, null, 2) + '\n';
  await writeWithBackpressure(ctx.io.stdout, text);
  return { kind: 'none' };
}

/**
 * The key and URL a plugin's config names (or those of the cnv profile it names) made the run's
 * credentials, as --api-key and --base-url would, so nothing comes from CNV_API_KEY or
 * CNV_BASE_URL (the config is the whole input, as Meltano expects). Messages about them name the
 * settings (`api_key of --config FILE`), never cnv's flags.
 */
export async function useConfigCredentials(ctx: Context, path: string, config: PluginClientConfig): Promise<void> {
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
    const [missing, setting] = apiKey === undefined ? ['API key', 'api_key'] : ['base URL', 'base_url'];
    throw new UsageError(
      `--config ${path}: profile "${config.profile}" has no ${missing}; give ${setting} in the config`,
    );
  }
  ctx.useCredentials({ apiKey, baseUrl, sources });
}

/** The client a plugin's config chooses: its max_retries and timeout_ms over the global options. */
export function clientChoiceOf(config: PluginClientConfig): ClientChoice {
  return {
    ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    ...(config.timeoutMs === undefined ? {} : { timeout: config.timeoutMs }),
  };
}
