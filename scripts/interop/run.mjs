// `npm run interop`: cnv's Singer tap under the real Meltano, into the real target-jsonl and
// target-postgres (docs/interop.md). First it asks pip whether the pinned packages can be
// installed here (probe.mjs); where they cannot, it prints one line, `interop: skipped: ...`, and
// exits 0 (1 with CNV_INTEROP=require). Then it builds dist/; set-up (venvs, PostgreSQL, the
// emulators, the Meltano project) fails loudly with exit 1; then each check prints ok/FAIL and the
// run ends with "N passed, N failed" (exit 1 when any failed). Everything it starts is stopped
// at the end, on failure and on Ctrl-C too; its temp dir is removed unless CNV_INTEROP_KEEP=1.
//   CNV_INTEROP           `require`: packages pip cannot install fail the run (exit 1) instead of skipping it
//   CNV_INTEROP_CONTACTS  bulk contacts seeded on top of the demo data (default 3000)
//   CNV_INTEROP_TAP       the tap's executable (default: the repo's bin/tap-cnv.js; e.g. an npm-installed tap-cnv)
//   CNV_INTEROP_ONLY      run only the checks whose name matches this regular expression (debugging)
//   CNV_INTEROP_CACHE     where the venvs are kept (default ~/.cache/cnv-interop)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulatorProcess } from '../../test/bench/emulator.mjs';
import { cnvRunner, START } from './account.mjs';
import { CHECKS, CheckFailure } from './checks.mjs';
import { COPY_CONTACTS, startCopyAccounts } from './copy.mjs';
import { writeProject } from './meltano.mjs';
import { startPostgres } from './postgres.mjs';
import { killChildren, run, say, SetupError } from './proc.mjs';
import { skipReason } from './probe.mjs';
import { ensureVenvs } from './venvs.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const cleanups = [];
let cleaning;
/** Stops everything the run started, once (a signal and the end of main() share the one promise). */
const cleanup = () =>
  (cleaning ??= (async () => {
    killChildren();
    while (cleanups.length)
      await cleanups
        .pop()()
        .catch(() => undefined);
  })());
let interrupted = 0;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    interrupted = sig === 'SIGINT' ? 130 : 143;
    say(`${sig}: stopping what the run started`);
    cleanup().finally(() => process.exit(interrupted));
  });
}

/** The streams the tap's discovery lists (run directly: a config file that lives only as long as the run). */
async function discover(tap, emulator, dir) {
  const config = join(dir, 'discover-config.json');
  writeFileSync(config, JSON.stringify({ base_url: emulator.url, api_key: emulator.keys.full, start_date: START }), {
    mode: 0o600,
  });
  const { stdout } = await run(tap, ['--config', config, '--discover']);
  rmSync(config);
  return JSON.parse(stdout).streams.map((s) => s.tap_stream_id ?? s.stream);
}

/** `npm run build` (the npm that runs this script, when npm does), its output kept for the error message. */
async function build() {
  const npm = process.env.npm_execpath;
  await (npm
    ? run(process.execPath, [npm, 'run', 'build'], { cwd: repo })
    : run('npm', ['run', 'build'], { cwd: repo }));
}

async function setUp(started, python) {
  const tap = process.env.CNV_INTEROP_TAP || join(repo, 'bin', 'tap-cnv.js');
  if (!existsSync(tap))
    throw new SetupError(
      process.env.CNV_INTEROP_TAP
        ? `CNV_INTEROP_TAP names ${tap}, which is not there`
        : `${tap} is not there: the tap's bin (package.json "bin": tap-cnv) is missing`,
    );
  say('building dist/: npm run build');
  await build();
  say(`built at ${secs(Date.now() - started)}`);
  const venvs = await ensureVenvs(python);
  say(
    `venvs ready (${Object.values(venvs).every((v) => v.cached) ? 'cached' : 'built'}) at ${secs(Date.now() - started)}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'cnv-interop-'));
  if (process.env.CNV_INTEROP_KEEP !== '1') cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
  const pg = await startPostgres();
  cleanups.push(pg.stop);
  say(`PostgreSQL on 127.0.0.1:${pg.port} at ${secs(Date.now() - started)}`);
  const bulkContacts = Number(process.env.CNV_INTEROP_CONTACTS ?? 3000);
  const emulator = await startEmulatorProcess(['--seed-contacts', String(bulkContacts), '--quiet']);
  cleanups.push(emulator.stop);
  say(`emulator at ${emulator.url} (demo data and ${bulkContacts} bulk contacts)`);
  const jsonlDir = join(tmp, 'jsonl');
  const stateDir = join(tmp, 'state');
  const extraJsonlDirs = [];
  const target = join(repo, 'bin', 'target-cnv.js');
  const copy = await startCopyAccounts(repo, cleanups);
  if (process.env.CNV_INTEROP_KEEP !== '1')
    cleanups.push(async () => rmSync(copy.dir, { recursive: true, force: true }));
  say(`the copy's accounts: ${copy.source.url} (${COPY_CONTACTS} contacts) into ${copy.sandbox.url}`);
  const meltano = writeProject(join(tmp, 'project'), { tap, venvs, jsonlDir, pg, emulator, target });
  const isolated = (suffix, { fileState = false } = {}) => {
    const dir = join(tmp, `jsonl-${suffix}`);
    mkdirSync(dir, { recursive: true });
    extraJsonlDirs.push(dir);
    return {
      TARGET_POSTGRES_DEFAULT_TARGET_SCHEMA: `cnv_${suffix.replaceAll('-', '_')}`,
      TARGET_JSONL_DESTINATION_PATH: dir,
      ...(fileState ? { MELTANO_STATE_BACKEND_URI: `file://${stateDir}` } : {}),
    };
  };
  const discovered = await discover(tap, emulator, tmp);
  return {
    tmp,
    pg,
    stateDir,
    systemDb: join(tmp, 'project', '.meltano', 'meltano.db'),
    emulator,
    meltano,
    jsonlDir,
    extraJsonlDirs,
    isolated,
    bulkContacts,
    discovered,
    logs: [],
    cnv: cnvRunner(repo, emulator, join(tmp, 'cnv-config')),
    streams: discovered.filter((s) => ['contacts', 'custom_events', 'email_events'].includes(s)),
    copy,
  };
}

async function main() {
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  const mode = process.env.CNV_INTEROP ?? '';
  if (mode !== '' && mode !== 'require') {
    console.error(`interop: set-up failed: CNV_INTEROP=${mode}: the one value it takes is "require"`);
    process.exit(1);
  }
  const { python, reason } = await skipReason();
  if (reason && mode === 'require') {
    console.error(`interop: set-up failed: ${reason}, and CNV_INTEROP=require`);
    process.exit(1);
  }
  if (reason) {
    console.log(`interop: skipped: ${reason}`);
    process.exit(0);
  }
  say(`every pinned package installable or its venv cached (asked pip in ${secs(Date.now() - started)})`);
  try {
    const ctx = await setUp(started, python);
    say(`set-up done in ${secs(Date.now() - started)}; checking ${ctx.streams.join(', ')}`);
    const only = process.env.CNV_INTEROP_ONLY ? new RegExp(process.env.CNV_INTEROP_ONLY, 'i') : undefined;
    for (const check of CHECKS.filter((c) => !only || only.test(c.name))) {
      if (interrupted) break;
      const t = Date.now();
      try {
        const note = await check.run(ctx);
        passed++;
        console.log(`ok   ${check.name} (${secs(Date.now() - t)})${note ? `: ${note}` : ''}`);
      } catch (e) {
        if (interrupted) break;
        failed++;
        console.log(`FAIL ${check.name} (${secs(Date.now() - t)}): ${e.message}`);
        for (const d of e instanceof CheckFailure ? e.details : []) console.log(`     ${d}`);
      }
    }
  } catch (e) {
    if (!interrupted) console.error(`interop: set-up failed: ${e instanceof SetupError ? e.message : e.stack}`);
    await cleanup();
    process.exit(interrupted || 1);
  }
  await cleanup();
  if (interrupted) process.exit(interrupted);
  console.log(`${passed} passed, ${failed} failed (${secs(Date.now() - started)})`);
  process.exit(failed ? 1 : 0);
}

await main();
