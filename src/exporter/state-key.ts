import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { ExportKind } from '../endpoints/exports.js';

/**
 * An account as cnv names it where it keeps something of its own (an export's state, a contacts
 * snapshot): the key's identity, then the API's host and path, e.g.
 * `sk_live_demo@api.example.com`. The identity of a key shaped `sk_live_<key id>_<secret>` is
 * `sk_live_<key id>` (the part cnv shows of it anyway); another key's is `key-` and 12 hex
 * digits of its SHA-256. Never the key: the name is shown and is a file's name. The same base
 * URL and key give the same name whether they come from the environment, a flag or a profile of
 * any name; another key (or URL) gives another.
 */
export function accountIdentity(baseUrl: string, apiKey: string): string {
  const live = /^sk_live_([A-Za-z0-9]+)_/.exec(apiKey);
  const who = live ? `sk_live_${live[1]}` : `key-${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}`;
  return `${who}@${hostAndPath(baseUrl)}`;
}

function hostAndPath(baseUrl: string): string {
  const url = new URL(urlWithoutCredentials(baseUrl));
  return url.host + url.pathname.replace(/\/+$/, '');
}

/**
 * The default key of an export's state: the account (accountIdentity), kind and email type, then
 * where it writes: `:<absolute path>` for a file, `/stdout` for stdout, e.g.
 * `sk_live_demo@api.example.com/email-events/EMAIL_OPEN:/data/opens.ndjson`. Two accounts or two
 * outputs never share a cursor: each file is its own incremental export, and a pipeline never
 * moves a file's position.
 */
export function defaultStateKey(
  account: string,
  kind: ExportKind,
  emailType: string | undefined,
  output: { file: string } | 'stdout',
): string {
  const to = output === 'stdout' ? '/stdout' : `:${output.file}`;
  return `${account}/${kind}${emailType ? `/${emailType}` : ''}${to}`;
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

/** Checks a --state-key NAME (or a KEY argument). */
export function checkStateKey(name: string, flag = '--state-key'): string {
  const key = name.trim();
  if (key === '' || key.length > 200 || /[\u0000-\u001f\u007f]/.test(key)) {
    throw new UsageError(`${flag}: expected 1 to 200 printable characters, got ${JSON.stringify(name)}`);
  }
  return key;
}

/** The file stem of a key's state: readable, and unique thanks to a hash of the whole key. */
export function stateFileStem(key: string): string {
  const slug = key
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 80);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 10);
  return `${slug}.${hash}`;
}
