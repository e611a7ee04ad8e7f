import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { ExportKind } from './state.js';

/**
 * The default key of an export's state: profile, API host and path, kind and email type, then
 * where it writes: `:<absolute path>` for a file, `/stdout` for stdout, e.g.
 * `default@api.example.com/email-events/EMAIL_OPEN:/data/opens.ndjson`. Two profiles, two base
 * URLs or two outputs never share a cursor: each file is its own incremental export, and a
 * pipeline never moves a file's position. Without `output`, the key of earlier versions
 * (no output part), which a state of that output keeps using.
 */
export function defaultStateKey(profile: string, baseUrl: string, kind: ExportKind, emailType?: string, output?: { file: string } | 'stdout'): string {
  const url = new URL(baseUrl);
  const where = url.host + url.pathname.replace(/\/+$/, '');
  const to = output === undefined ? '' : output === 'stdout' ? '/stdout' : `:${output.file}`;
  return `${profile}@${where}/${kind}${emailType ? `/${emailType}` : ''}${to}`;
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
  const slug = key.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 80);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 10);
  return `${slug}.${hash}`;
}
