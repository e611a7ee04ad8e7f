import { AuthError, UsageError } from '../errors.js';
import { redactUrl } from '../redact/redact.js';
import { shellWord } from '../lib/shell-word.js';
import { checkApiKey } from './api-key.js';
import type { ProfileStore } from './profiles.js';

interface CredentialInputs {
  apiKeyFlag?: string;
  baseUrlFlag?: string;
  /**
   * What the flags' values are called in messages, when given another way (the tap's settings):
   * default --api-key, --base-url.
   */
  flagSources?: { apiKey: string; baseUrl: string };
  profileFlag?: string;
  env: NodeJS.ProcessEnv;
}

export interface Credentials {
  apiKey: string;
  apiKeySource: string;
  baseUrl: string;
  baseUrlSource: string;
  profile: string;
  warnings: string[];
}

/** The profile in force: --profile, then CNV_PROFILE, then the one `cnv config use` chose. */
export function profileName(inputs: CredentialInputs, store: ProfileStore): string {
  return inputs.profileFlag || inputs.env.CNV_PROFILE || store.currentProfile();
}

/** Key and base URL by precedence: flag, then environment, then the profile. */
export function resolveCredentials(inputs: CredentialInputs, store: ProfileStore): Credentials {
  const profile = profileName(inputs, store);
  const saved = store.profile(profile) ?? {};
  const named = inputs.profileFlag ? '--profile' : inputs.env.CNV_PROFILE ? 'CNV_PROFILE' : undefined;
  // A profile asked for by name that does not exist is a typo, not "no key": never fall back to another account.
  if (named && store.profile(profile) === undefined)
    throw unknownProfile(profile, named, Object.keys(store.profiles()));
  const warnings: string[] = [];

  const [apiKey, apiKeySource] = pick([
    [inputs.apiKeyFlag, inputs.flagSources?.apiKey ?? '--api-key'],
    [inputs.env.CNV_API_KEY, 'CNV_API_KEY'],
    [saved.apiKey, `profile "${profile}"`],
  ]);
  if (apiKey === undefined) {
    throw new AuthError(
      `no API key configured for profile "${profile}"`,
      `run \`cnv ${profileWord(named, profile)}config set-key\` (reads the key from stdin), or set CNV_API_KEY`,
      'no_api_key',
    );
  }
  const { warning } = checkApiKey(apiKey, apiKeySource);
  if (warning) warnings.push(warning);

  const [baseUrl, baseUrlSource] = pick([
    [inputs.baseUrlFlag, inputs.flagSources?.baseUrl ?? '--base-url'],
    [inputs.env.CNV_BASE_URL, 'CNV_BASE_URL'],
    [saved.baseUrl, `profile "${profile}"`],
  ]);
  if (baseUrl === undefined) {
    throw new UsageError(
      `no base URL configured for profile "${profile}"`,
      `pass --base-url, set CNV_BASE_URL, or run \`cnv ${profileWord(named, profile)}config set-url URL\``,
      'no_base_url',
    );
  }
  return { apiKey, apiKeySource, baseUrl: checkBaseUrl(baseUrl, baseUrlSource), baseUrlSource, profile, warnings };
}

/**
 * `--profile NAME ` when the profile was named (flag or CNV_PROFILE), for a hint's `cnv config`
 * command: without it, that command would write to the current profile, not this one.
 */
function profileWord(named: string | undefined, profile: string): string {
  return named ? `--profile ${shellWord(profile)} ` : '';
}

function unknownProfile(name: string, source: string, known: string[]): UsageError {
  return new UsageError(
    `no profile named "${name}" (from ${source})`,
    known.length
      ? `profiles: ${known.join(', ')} (\`cnv config list\`); create one with \`cnv --profile ${shellWord(name)} config set-key\``
      : `no profiles yet; create one with \`cnv --profile ${shellWord(name)} config set-key\``,
    'unknown_profile',
  );
}

function pick(candidates: Array<[string | undefined, string]>): [string, string] | [undefined, undefined] {
  for (const [value, source] of candidates) if (value !== undefined && value !== '') return [value, source];
  return [undefined, undefined];
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A valid http(s) URL; plain http only towards loopback, so a key never crosses a network in
 * clear; no user or password in it (cnv never sends them, and a URL is printed and stored);
 * a final `/v2` dropped, since every endpoint path starts with it.
 */
export function checkBaseUrl(raw: string, source: string): string {
  let url: URL;
  const shown = redactUrl(raw);
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the base URL from ${source} is not a valid URL: ${shown}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`the base URL from ${source} must use https: ${shown}`);
  }
  if (url.username || url.password) {
    throw new UsageError(
      `the base URL from ${source} contains a user name or password (${redactUrl(url.toString())}); cnv does not send them`,
      'remove them from the URL: the API is authenticated by the API key alone (`cnv config set-key` or CNV_API_KEY)',
      'credentials_in_url',
    );
  }
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new UsageError(
      `plain http is refused for ${url.hostname} (from ${source}); use https`,
      'http:// is accepted only for loopback hosts such as the emulator',
    );
  }
  if (url.search || url.hash) throw new UsageError(`the base URL from ${source} must not have a query or fragment`);
  // The emulator's banner says "API at http://…/v2": a URL pasted from there still works.
  return url.toString().replace(/\/+$/, '').replace(/\/v2$/i, '');
}
