// The account side: the emulator, its admin routes, and what cnv's own export says it holds.
import { join } from 'node:path';
import { byKey, contactAsRecord, parseExact } from './compare.mjs';
import { run, SetupError } from './proc.mjs';

/** The lower bound given to the tap as start_date and to the custom-events export as --since. */
export const START = '2000-01-01T00:00:00Z';

/** The streams the tap has, each with its key and the export that says what the account holds. */
export const STREAMS = {
  contacts: {
    key: 'id',
    args: ['export', 'contacts', '--no-state', '-o', 'ndjson', '--fields-by', 'key'],
    toRecord: contactAsRecord,
  },
  custom_events: { key: 'eventId', args: ['export', 'custom-events', '--no-state', '-o', 'ndjson', '--since', START] },
  email_events: { key: 'eventId', args: ['export', 'email-events', '--type', 'all', '--no-state', '-o', 'ndjson'] },
};

/** cnv run against the emulator, with a config directory of its own (no profile of the machine's). */
export function cnvRunner(repo, emulator, configDir) {
  const env = {
    ...process.env,
    CNV_BASE_URL: emulator.url,
    CNV_API_KEY: emulator.keys.full,
    CNV_CONFIG_DIR: configDir,
    NO_COLOR: '1',
  };
  return (args, more = {}) =>
    run(process.execPath, [join(repo, 'bin', 'cnv.js'), ...args, '--quiet'], { env, ...more });
}

/** What the account holds for `stream`, by key, per cnv's own export (numbers exact). */
export async function accountRows(cnv, stream) {
  const { key, args, toRecord = (r) => r } = STREAMS[stream];
  const { stdout } = await cnv(args);
  const rows = stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => toRecord(parseExact(l)));
  return byKey(rows, key);
}

/** An admin call; rejects on a non-2xx answer. */
export async function admin(emulator, path, body) {
  const res = await fetch(emulator.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new SetupError(`emulator ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}
