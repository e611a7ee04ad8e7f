import { z } from 'zod';
import { UsageError } from '../errors.js';

// The settings of the client in the config of cnv's Singer plugins (--config of `cnv tap` and
// `cnv target`), snake_case as Meltano writes settings. The key and URL come from the config
// only, unless `profile` names a cnv profile to take them from.

/** The key and URL, or the cnv profile to read them from. */
export const CREDENTIAL_SETTINGS = {
  base_url: z.string().url().optional(),
  api_key: z.string().min(1).optional(),
  profile: z.string().min(1).optional(),
};

/** The client's retries and the time limit of each attempt. */
export const CLIENT_SETTINGS = {
  max_retries: z.number().int().min(0).max(20).optional(),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
};

/** What a plugin's config says of its client (the command makes them the run's credentials and client). */
export interface PluginClientConfig {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

/** Those settings as parsed. */
interface ClientSettings {
  base_url?: string;
  api_key?: string;
  profile?: string;
  max_retries?: number;
  timeout_ms?: number;
}

/**
 * The client's settings of a parsed config: a key and a URL, or a profile (else exit 2, `hint`
 * naming the plugin's docs; `more`: what the config has instead, after the message).
 */
export function clientConfig(path: string, c: ClientSettings, hint: string, more = ''): PluginClientConfig {
  if (!c.profile && (!c.api_key || !c.base_url))
    throw new UsageError(
      `--config ${path}: needs api_key and base_url (or profile, the name of a cnv profile to read them from)${more}`,
      hint,
    );
  return {
    baseUrl: c.base_url,
    apiKey: c.api_key,
    profile: c.profile,
    maxRetries: c.max_retries,
    timeoutMs: c.timeout_ms,
  };
}

/** A config document's settings, and the names among them its plugin does not read. */
interface GivenSettings {
  given: Record<string, unknown>;
  unknown: string[];
}

/**
 * The settings of a parsed --config document of `plugin` (tap-cnv, target-cnv): a JSON object
 * (else exit 2), its null members left out (Meltano may write an unset setting so), each name not
 * in `known` said in one warning and ignored, as the Meltano SDK's plugins do.
 */
export function givenSettings(
  doc: unknown,
  path: string,
  plugin: string,
  known: readonly string[],
  warn: (message: string) => void,
): GivenSettings {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new UsageError(`--config ${path}: not a config of ${plugin} (a JSON object of settings)`);
  const given = Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== null));
  const unknown = Object.keys(given).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    const settings = `setting${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`;
    warn(`--config ${path}: unknown ${settings}: ignored (settings: \`${plugin} --about\`)`);
  }
  return { given, unknown };
}
