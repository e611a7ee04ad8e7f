import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { ExportKind } from '../endpoints/exports.js';

/**
 * The default key of an export's state: the account (src/config/account-identity.ts), kind and email type, then
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
