import { createHash } from 'node:crypto';

/**
 * An account as cnv names it wherever it keeps something of its own (an export's state, a contacts
 * snapshot, a batch report's `job`, the field cache, the tap's bookmarks): the key's identity,
 * then the API's host and path, e.g. `sk_live_demo@api.example.com`. The identity of a key
 * shaped `sk_live_<key id>_<secret>` is `sk_live_<key id>` (the part cnv shows of it anyway);
 * another key's is `key-` and 12 hex digits of its SHA-256. Never the key: the name is shown and
 * is a file's name. The base URL is normalised (no user name or password, host in lower case, no
 * default port, no trailing `/`), so `https://x/` and `https://x` are one account; the same base
 * URL and key give the same name whether they come from the environment, a flag or a profile of
 * any name; another key (or URL) gives another.
 */
export function accountIdentity(baseUrl: string, apiKey: string): string {
  const live = /^sk_live_([A-Za-z0-9]+)_/.exec(apiKey);
  const who = live ? `sk_live_${live[1]}` : `key-${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}`;
  return `${who}@${hostAndPath(baseUrl)}`;
}

function hostAndPath(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return url.host + url.pathname.replace(/\/+$/, '');
  } catch {
    // Not a URL (checked before any request): named as typed, never a crash.
    return urlWithoutCredentials(baseUrl).replace(/\/+$/, '');
  }
}

/**
 * Whether an account named earlier (a state, a report, a bookmark) is the account `now`
 * (accountIdentity). Also reads the form batch reports wrote before: `<host and path> <masked
 * key>` (`api.example.com sk_live_ab_****`), where a key of another shape was `****`, which
 * stood for any such key of that host.
 */
export function sameAccount(earlier: string, now: string): boolean {
  if (earlier === now) return true;
  const old = /^(\S*) (?:sk_live_([A-Za-z0-9]+)_\*{4}|\*{4})$/.exec(earlier);
  if (!old) return false;
  const at = now.indexOf('@');
  const [who, place] = [now.slice(0, at), now.slice(at + 1)];
  return place === old[1] && (old[2] === undefined ? who.startsWith('key-') : who === `sk_live_${old[2]}`);
}

/** A base URL as a state may keep and show it: without a user name or password. */
export function urlWithoutCredentials(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (!url.username && !url.password) return baseUrl;
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, baseUrl.endsWith('/') ? '/' : '');
  } catch {
    return baseUrl;
  }
}
