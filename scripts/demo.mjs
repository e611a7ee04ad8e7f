// `npm run demo`: starts the emulator on a free port, tours the CLI against it, stops it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../dist/emulator/index.js';

const bin = fileURLToPath(new URL('../bin/cnv.js', import.meta.url));
const configDir = mkdtempSync(join(tmpdir(), 'cnv-demo-'));
const emulator = await startEmulator({ port: 0, seed: 'demo', quiet: true });
const env = { ...process.env, CNV_CONFIG_DIR: configDir, CNV_BASE_URL: emulator.url, CNV_API_KEY: emulator.keys.full };
delete env.CI;

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[2m${s}\x1b[0m` : s);

function cnv(args, extraEnv = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv } }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

const shellWord = (a) => (/[\s{}"'$]/.test(a) ? `'${a}'` : a);

/** Runs one step, printed as the user would type it: variables set for this command only come first. */
async function step(title, args, extraEnv = {}) {
  console.log(`\n${bold('# ' + title)}`);
  const assignments = Object.entries(extraEnv)
    .map(([name, value]) => `${name}=${shellWord(value)} `)
    .join('');
  console.log(bold(`$ ${assignments}cnv ${args.map(shellWord).join(' ')}`));
  const { code, stdout, stderr } = await cnv(args, extraEnv);
  if (stdout.trim()) console.log(stdout.trimEnd());
  if (stderr.trim()) console.log(dim(stderr.trimEnd()));
  console.log(dim(`(exit ${code})`));
}

try {
  console.log(bold(`cnv demo against the emulator at ${emulator.url}`));
  console.log(dim(`(CNV_BASE_URL and CNV_API_KEY point at it; config lives in a temporary directory)`));
  await step('Check the set-up', ['doctor']);
  await step('Create (or update) a contact', [
    'contacts',
    'upsert',
    '--email',
    'demo.user@example.com',
    '--status',
    'subscribed',
    '--field',
    'firstName=Demo',
    '--field',
    'score=42',
  ]);
  await step('Look it up', ['contacts', 'get', '--email', 'demo.user@example.com']);
  await step('Track a custom event for it', [
    'events',
    'track',
    '--event',
    'demo_signup',
    '--email',
    'demo.user@example.com',
    '--data',
    '{"plan":"pro"}',
    '--client-event-id',
    'demo-1',
  ]);
  await step('Track it again: the clientEventId makes it a duplicate, not a second event', [
    'events',
    'track',
    '--event',
    'demo_signup',
    '--email',
    'demo.user@example.com',
    '--client-event-id',
    'demo-1',
  ]);
  await step('A bad value is caught before anything is sent (exit 2)', [
    'contacts',
    'upsert',
    '--email',
    'not-an-email',
  ]);
  await step('No match (exit 5)', ['contacts', 'get', '--email', 'nobody@example.com']);
  await step(
    'A key whose account lacks the endpoint (exit 4): the emulator\'s "basic" key, for this one command',
    ['contacts', 'get', '--email', 'demo.user@example.com'],
    { CNV_API_KEY: emulator.keys.basic },
  );

  const people = join(configDir, 'people.csv');
  writeFileSync(people, 'email\nada@example.com\ngrace@example.com\nnot-an-email\nnobody@example.com\n');
  await step('Add a CSV of people to an audience: every row gets a result (exit 6: some failed)', [
    'audience',
    'add',
    'c1000000-0000-4000-8000-000000000003',
    '--batch',
    people,
    '--report',
    '-',
  ]);

  const out = join(configDir, 'contacts.ndjson');
  await step('Export every contact into a file (state saved after each page)', [
    'export',
    'contacts',
    '--out',
    out,
    '--limit',
    '1000',
  ]);
  await step('Change one contact', ['contacts', 'upsert', '--email', 'ada@example.com', '--field', 'city=Paris']);
  await step('Export again: only what changed since the last run is appended', ['export', 'contacts', '--out', out]);
  console.log(dim(`(${readFileSync(out, 'utf8').trim().split('\n').length} lines in ${out})`));
  await step('What the state store remembers', ['export', 'state', 'list']);
} finally {
  await emulator.close();
  rmSync(configDir, { recursive: true, force: true });
  console.log(dim('\nemulator stopped'));
}
