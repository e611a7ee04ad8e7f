// The copy of an account through `meltano run tap-cnv-copy target-cnv` (checks.mjs): a source of
// its own (bulk contacts and events only, so that every email is one contact's, as a copy through
// the API needs: the API finds a contact by email) and an empty sandbox, both given the bulk
// contacts' fields; and what "the sandbox equals the source" means: the contacts matched by
// email, their fields compared by key (values by canonical form), the subscription status where a
// client can set it (BOUNCED is the system's), and each custom event once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulatorProcess } from '../../test/bench/emulator.mjs';
import { cnvRunner, START } from './account.mjs';
import { canonical, parseExact } from './compare.mjs';
import { SetupError } from './proc.mjs';

export const COPY_CONTACTS = 300;
export const COPY_EVENTS = 60;

const FIELDS = [
  ['firstName', 'First name', 'STRING'],
  ['lastName', 'Last name', 'STRING'],
  ['city', 'City', 'STRING'],
  ['score', 'Score', 'NUMBER'],
];
const SETTABLE = new Set(['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS']);

/** The two accounts of the copy, their cnv runners, and a folder for the target (its config directory, its report). */
export async function startCopyAccounts(repo, cleanups) {
  const source = await startEmulatorProcess([
    '--seed',
    'none',
    '--seed-contacts',
    String(COPY_CONTACTS),
    '--seed-events',
    String(COPY_EVENTS),
    '--quiet',
  ]);
  cleanups.push(source.stop);
  const sandbox = await startEmulatorProcess(['--seed', 'none', '--quiet']);
  cleanups.push(sandbox.stop);
  for (const emulator of [source, sandbox])
    for (const [key, label, dataType] of FIELDS) {
      const res = await fetch(`${emulator.url}/v2/fields`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': emulator.keys.full },
        body: JSON.stringify({ key, label, objectType: 'CONTACT', dataType }),
      });
      if (!res.ok) throw new SetupError(`creating field ${key} at ${emulator.url}: HTTP ${res.status}`);
    }
  const dir = mkdtempSync(join(tmpdir(), 'cnv-interop-copy-'));
  return {
    source,
    sandbox,
    dir,
    configDir: join(dir, 'cnv'),
    report: join(dir, 'report.ndjson'),
    cnvSource: cnvRunner(repo, source, join(dir, 'cnv-source')),
    cnvSandbox: cnvRunner(repo, sandbox, join(dir, 'cnv-sandbox')),
  };
}

/** The variables Meltano reads the copy's settings from: the tap's source, the target's sandbox. */
export function copyEnv(copy) {
  return {
    TAP_CNV_COPY_BASE_URL: copy.source.url,
    TAP_CNV_COPY_API_KEY: copy.source.keys.full,
    TARGET_CNV_BASE_URL: copy.sandbox.url,
    TARGET_CNV_API_KEY: copy.sandbox.keys.full,
    TARGET_CNV_REPORT_PATH: copy.report,
    // The target's ledger and snapshot (and the tap's rate leases) in a folder of the run.
    CNV_CONFIG_DIR: copy.configDir,
  };
}

const ndjson = (text) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map(parseExact);

/** An account's contacts by email, and its custom events as `name|email|data`, sorted. */
async function accountOf(cnv) {
  const contacts = new Map();
  const rows = ndjson((await cnv(['export', 'contacts', '--no-state', '-o', 'ndjson', '--fields-by', 'key'])).stdout);
  for (const row of rows) contacts.set(String(row.email), row);
  const events = ndjson(
    (await cnv(['export', 'custom-events', '--no-state', '-o', 'ndjson', '--since', START])).stdout,
  );
  const lines = events.map((e) => `${e.eventName}|${e.contactEmail}|${JSON.stringify(canonical(e.data))}`).sort();
  return { contacts, events: lines, clientEventIds: events.map((e) => String(e.clientEventId)) };
}

/** The differences between the sandbox and the source (at most `max`, one line each); none: equal. */
export async function copyDifferences(copy, max = 8) {
  const [source, sandbox] = await Promise.all([accountOf(copy.cnvSource), accountOf(copy.cnvSandbox)]);
  const out = [];
  const note = (s) => out.length < max && out.push(s);
  for (const [email, a] of source.contacts) {
    const b = sandbox.contacts.get(email);
    if (!b) {
      note(`${email}: missing`);
      continue;
    }
    const fa = JSON.stringify(canonical(a.fields ?? {}));
    const fb = JSON.stringify(canonical(b.fields ?? {}));
    if (fa !== fb) note(`${email}: fields ${fb}, expected ${fa}`);
    if (SETTABLE.has(a.subscriptionStatus) && a.subscriptionStatus !== b.subscriptionStatus)
      note(`${email}: ${b.subscriptionStatus}, expected ${a.subscriptionStatus}`);
  }
  for (const email of sandbox.contacts.keys()) if (!source.contacts.has(email)) note(`${email}: an extra contact`);
  if (JSON.stringify(sandbox.events) !== JSON.stringify(source.events))
    note(
      `custom events: ${sandbox.events.length} in the sandbox, ${source.events.length} in the source, or not the same`,
    );
  if (new Set(sandbox.clientEventIds).size !== sandbox.clientEventIds.length) note('an event is in the sandbox twice');
  return { diffs: out, contacts: source.contacts.size, events: source.events.length };
}

/** The sandbox's write requests since its stats were reset. */
export async function sandboxWrites(copy) {
  const res = await fetch(`${copy.sandbox.url}/_emulator/stats`);
  const stats = await res.json();
  return Object.entries(stats.byRoute ?? {})
    .filter(([route]) => route.startsWith('POST /v2/contacts') || route.startsWith('POST /v2/events'))
    .reduce((n, [, c]) => n + c, 0);
}

/** Zeroes the sandbox's request counts. */
export async function resetSandboxStats(copy) {
  await fetch(`${copy.sandbox.url}/_emulator/stats/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
}
