// The checks of `npm run interop`, in order (each may rely on the ones before it having run).
// A check throws CheckFailure with a one-line reason (and detail lines); set-up errors stop the run.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { accountRows, admin, STREAMS } from './account.mjs';
import { diffRows } from './compare.mjs';
import { copyDifferences, copyEnv, resetSandboxStats, sandboxWrites } from './copy.mjs';
import { sleep, tail } from './proc.mjs';
import { jsonlLineCount, jsonlRows, pgRows } from './targets.mjs';

export class CheckFailure extends Error {
  constructor(message, details = []) {
    super(message);
    this.details = details;
  }
}

/** `meltano ARGS`; a non-zero exit fails the check with the end of Meltano's log. */
async function meltano(ctx, args, env = {}) {
  const r = await ctx.meltano(args, { env, allowFail: true });
  ctx.logs.push(r.stderr, r.stdout);
  if (r.code !== 0) {
    const errors = r.stderr
      .split('\n')
      .filter((l) => /\[error|Error:|Exception:/.test(l))
      .slice(0, 8)
      .join('\n');
    throw new CheckFailure(`meltano ${args.join(' ')} exited ${r.code}`, [
      ...(errors ? [`first errors:\n${errors}`] : []),
      tail(r.stderr, 25),
    ]);
  }
  return r;
}

/** Sums what target-postgres (singer-sdk) says it read: records and ACTIVATE_VERSION messages. */
function readerCounts(log) {
  let records = 0;
  let activate = 0;
  for (const m of log.matchAll(
    /completed processing \d+ lines of input \(\d+ schemas, (\d+) records, \d+ batch manifests, \d+ state messages, (\d+) activate version messages\)/g,
  )) {
    records += Number(m[1]);
    activate += Number(m[2]);
  }
  return { records, activate };
}

/** Each stream of the target equal to the account, per cnv's export; throws with the differences. */
async function assertExact(ctx, label, read) {
  const problems = [];
  const counts = [];
  for (const stream of ctx.streams) {
    const expected = await accountRows(ctx.cnv, stream);
    const actual = await read(stream);
    counts.push(`${stream} ${actual.size}`);
    const diffs = diffRows(expected, actual);
    if (diffs.length)
      problems.push(
        `${stream} (${expected.size} in the account, ${actual.size} loaded):`,
        ...diffs.map((d) => `  ${d}`),
      );
  }
  if (problems.length) throw new CheckFailure(`${label} differs from cnv's export of the account`, problems);
  return counts.join(', ');
}

const jsonlExact = (ctx, dir, label) => assertExact(ctx, label, async (s) => jsonlRows(dir, s));
const pgExact = (ctx, schema, label) => assertExact(ctx, label, (s) => pgRows(ctx.pg, schema, s));

export const CHECKS = [
  {
    name: 'the tap discovers contacts, custom_events and email_events',
    run: async (ctx) => {
      const missing = Object.keys(STREAMS).filter((s) => !ctx.discovered.includes(s));
      if (missing.length)
        throw new CheckFailure(
          `discovery has no ${missing.join(', ')} (it lists: ${ctx.discovered.join(', ') || 'nothing'})`,
        );
      return ctx.discovered.join(', ');
    },
  },
  {
    name: 'meltano run tap-cnv target-jsonl: the files equal the account',
    run: async (ctx) => {
      await meltano(ctx, ['run', 'tap-cnv', 'target-jsonl']);
      return jsonlExact(ctx, ctx.jsonlDir, 'target-jsonl');
    },
  },
  {
    name: 'meltano run tap-cnv target-postgres: the tables equal the account',
    run: async (ctx) => {
      await meltano(ctx, ['run', 'tap-cnv', 'target-postgres']);
      return pgExact(ctx, 'cnv', 'target-postgres');
    },
  },
  {
    name: 'after changes, a second run loads only the changes (big numbers exact)',
    run: async (ctx) => {
      const changed = await changeAccount(ctx);
      const before = Object.fromEntries(ctx.streams.map((s) => [s, jsonlLineCount(ctx.jsonlDir, s)]));
      await meltano(ctx, ['run', 'tap-cnv', 'target-jsonl']);
      const grown = Object.fromEntries(ctx.streams.map((s) => [s, jsonlLineCount(ctx.jsonlDir, s) - before[s]]));
      const pgRun = await meltano(ctx, ['run', 'tap-cnv', 'target-postgres']);
      const { records } = readerCounts(pgRun.stderr);
      const wrong = ctx.streams
        .filter((s) => grown[s] !== changed[s])
        .map((s) => `${s}: ${grown[s]} records emitted, ${changed[s]} changed`);
      const total = ctx.streams.reduce((n, s) => n + changed[s], 0);
      if (records !== total) wrong.push(`target-postgres read ${records} records, ${total} changed`);
      if (wrong.length) throw new CheckFailure('the second run did not load exactly the changes', wrong);
      await jsonlExact(ctx, ctx.jsonlDir, 'target-jsonl after the second run');
      await pgExact(ctx, 'cnv', 'target-postgres after the second run');
      return `emitted ${ctx.streams.map((s) => `${s} ${grown[s]}`).join(', ')}`;
    },
  },
  {
    name: 'kill -9 of the tap mid-run (target-postgres), then a rerun: the tables exact',
    run: (ctx) => killAndRerun(ctx, { target: 'target-postgres', suffix: 'kill-tap', whole: false }),
  },
  {
    name: 'kill -9 of the whole meltano run (target-jsonl, file:// state backend), then a rerun: the files exact',
    run: (ctx) => killAndRerun(ctx, { target: 'target-jsonl', suffix: 'kill-all', whole: true }),
  },
  {
    name: 'meltano run --full-refresh after a contact is deleted: hard_delete removes it',
    run: async (ctx) => {
      const contacts = await accountRows(ctx.cnv, 'contacts');
      const victim = [...contacts.values()].find((c) => String(c.email) === 'grace@example.com');
      if (!victim) throw new CheckFailure('grace@example.com is not in the account to delete');
      await admin(ctx.emulator, `/_emulator/contacts/${victim.id}/delete`, {});
      const r = await meltano(ctx, ['run', '--full-refresh', 'tap-cnv', 'target-postgres']);
      const { activate } = readerCounts(r.stderr);
      const still = (await pgRows(ctx.pg, 'cnv', 'contacts')).has(String(victim.id));
      if (still)
        throw new CheckFailure(
          `the deleted contact ${victim.id} is still in cnv.contacts (target-postgres read ${activate} ACTIVATE_VERSION messages)`,
        );
      return `${await pgExact(ctx, 'cnv', 'target-postgres after the full refresh')}; ${activate} ACTIVATE_VERSION read`;
    },
  },
  {
    name: 'meltano run tap-cnv-copy target-cnv: the sandbox equals the source (contacts by email, fields by key; each custom event once)',
    run: async (ctx) => {
      const r = await meltano(ctx, ['run', 'tap-cnv-copy', 'target-cnv'], copyEnv(ctx.copy));
      const { diffs, contacts, events } = await copyDifferences(ctx.copy);
      if (diffs.length) throw new CheckFailure('the sandbox differs from the source', diffs);
      const states = /(\d+) of (\d+) states printed/.exec(r.stderr);
      if (!states || states[1] === '0' || states[1] !== states[2])
        throw new CheckFailure(`target-cnv printed ${states ? `${states[1]} of ${states[2]}` : 'no'} states`, [
          tail(r.stderr, 10),
        ]);
      return `${contacts} contacts, ${events} custom events; ${states[0]}`;
    },
  },
  {
    name: 'a second meltano run tap-cnv-copy target-cnv (from the state Meltano saved) sends no write',
    run: async (ctx) => {
      await resetSandboxStats(ctx.copy);
      await meltano(ctx, ['run', 'tap-cnv-copy', 'target-cnv'], copyEnv(ctx.copy));
      const writes = await sandboxWrites(ctx.copy);
      if (writes !== 0) throw new CheckFailure(`the second run sent ${writes} writes to the sandbox`);
      const { diffs } = await copyDifferences(ctx.copy);
      if (diffs.length) throw new CheckFailure('the sandbox differs from the source after the second run', diffs);
      return 'no write';
    },
  },
  {
    name: 'the API key is in no Meltano log, loaded file or saved state',
    run: async (ctx) => {
      const key = ctx.emulator.keys.full;
      // Meltano's system database (the systemdb state) and the file:// state backend, read raw.
      // (Meltano's own .meltano/run/tap-cnv/tap.config.json holds the key by design: not cnv's.)
      const files = [ctx.jsonlDir, ...ctx.extraJsonlDirs, ctx.stateDir, ctx.systemDb, ctx.copy.dir].flatMap(filesUnder);
      const where = [...ctx.logs.map((l, i) => [`log ${i}`, l]), ...files.map((f) => [f, readFileSync(f, 'latin1')])]
        .filter(([, t]) => t.includes(key))
        .map(([w]) => w);
      if (where.length) throw new CheckFailure('the API key was found', where);
      return `${ctx.logs.length} logs, ${files.length} files`;
    },
  },
];

/** Every file under `path` (itself when a file; nothing when absent). */
function filesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((f) => filesUnder(join(path, f)));
}

/** Writes through cnv and the admin routes; resolves to how many records of each stream changed. */
async function changeAccount(ctx) {
  const bulk = ctx.bulkContacts > 7 ? ['bulk.7@example.com'] : [];
  const updated = ['ada@example.com', 'linus@example.com', ...bulk];
  for (const [i, email] of updated.entries())
    await ctx.cnv(['contacts', 'upsert', '--email', email, '--field', `city=Interop ${i}`]);
  // 2^53+1 and 50 digits: a target that rounds shows here.
  await ctx.cnv(['contacts', 'upsert', '--email', 'interop.big@example.com', '--field', 'score=9007199254740993']);
  await ctx.cnv([
    'contacts',
    'upsert',
    '--email',
    'interop.huge@example.com',
    '--field',
    'score=12345678901234567890123456789012345678901234567890',
  ]);
  for (const i of [1, 2])
    await ctx.cnv([
      'events',
      'track',
      '--event',
      'interop_test',
      '--email',
      'ada@example.com',
      '--client-event-id',
      `interop-${i}`,
      '--data',
      `{"n":${i}}`,
    ]);
  await admin(ctx.emulator, '/_emulator/email-events', {
    events: [
      { eventType: 'EMAIL_OPEN', email: 'ada@example.com' },
      { eventType: 'EMAIL_CLICK', email: 'grace@example.com', link: 'https://example.com/x' },
    ],
  });
  return { contacts: updated.length + 2, custom_events: 2, email_events: 2 };
}

/** The pids of the descendants of `pid` (from /proc), with their command lines. */
function descendants(pid) {
  const children = new Map();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(
        readFileSync(`/proc/${p}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ')[1],
      );
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)).push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) =>
    (children.get(p) ?? []).forEach((c) => {
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${c}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        // gone meanwhile
      }
      out.push({ pid: c, cmd });
      walk(c);
    });
  walk(pid);
  return out;
}

/**
 * A run from nothing (its own state id, schema or directory) with the emulator slowed, a kill -9
 * of the tap (or of the whole run: Meltano, tap and target at once) once the tap has synced a
 * while, then a rerun from the state Meltano kept: the target must equal the account.
 */
async function killAndRerun(ctx, { target, suffix, whole }) {
  // Small pages and batches: the tap emits a STATE every 100 rows and target-postgres loads (and
  // passes the state on) every 500, instead of once at the end (singer-sdk's default is 10,000 rows).
  const env = {
    ...ctx.isolated(suffix, { fileState: whole }),
    TAP_CNV_PAGE_SIZE: '100',
    TARGET_POSTGRES_BATCH_SIZE_ROWS: '500',
  };
  await admin(ctx.emulator, '/_emulator/faults', { latencyMs: 150 });
  let child;
  let done = false;
  const running = ctx
    .meltano(['run', '--state-id-suffix', suffix, 'tap-cnv', target], {
      env,
      allowFail: true,
      onSpawn: (c) => (child = c),
    })
    .finally(() => (done = true));
  const started = Date.now();
  let tap;
  while (!tap && !done && Date.now() - started < 120_000) {
    await sleep(200);
    tap = descendants(child.pid).find(
      (p) => /tap-cnv/.test(p.cmd) && !/--discover/.test(p.cmd) && /--(catalog|properties)/.test(p.cmd),
    );
  }
  const ended = async () => {
    const r = await running;
    return new CheckFailure(`the run ended (exit ${r.code}) before the kill -9: slow the emulator more`, [
      tail(r.stderr, 25),
    ]);
  };
  if (done) throw await ended();
  if (!tap) throw new CheckFailure('the tap never started a sync (waited 120 s)');
  const tapStarted = Date.now();
  // Mid-run: once the target has loaded (or written) some rows, after a random extra moment.
  const loaded = async () =>
    target === 'target-postgres'
      ? (await pgRows(ctx.pg, env.TARGET_POSTGRES_DEFAULT_TARGET_SCHEMA, 'contacts')).size
      : jsonlLineCount(env.TARGET_JSONL_DESTINATION_PATH, 'contacts');
  while (!done && (await loaded()) === 0 && Date.now() - tapStarted < 120_000) await sleep(100);
  await sleep(Math.floor(Math.random() * 1500));
  const before = await loaded();
  if (done) throw await ended();
  if (whole) process.kill(-child.pid, 'SIGKILL');
  else process.kill(tap.pid, 'SIGKILL');
  const killedAt = Date.now();
  const killed = await running;
  ctx.logs.push(killed.stderr);
  await admin(ctx.emulator, '/_emulator/faults', { latencyMs: 0 });
  if (killed.code === 0) throw new CheckFailure('the run ended (exit 0) before the kill -9: slow the emulator more');
  // After a kill -9 of Meltano itself its job stays "running" in the system database, and a rerun
  // is refused until it goes stale (5 minutes): an operator who knows it died passes --force.
  const rerun = await meltano(
    ctx,
    ['run', ...(whole ? ['--force'] : []), '--state-id-suffix', suffix, 'tap-cnv', target],
    env,
  );
  const counts =
    target === 'target-postgres'
      ? await pgExact(ctx, env.TARGET_POSTGRES_DEFAULT_TARGET_SCHEMA, `${target} after the kill and rerun`)
      : await jsonlExact(ctx, env.TARGET_JSONL_DESTINATION_PATH, `${target} after the kill and rerun`);
  const reread =
    target === 'target-postgres'
      ? `the rerun read ${readerCounts(rerun.stderr).records} records (the account: ${counts})`
      : '';
  return `killed ${whole ? 'meltano, tap and target' : 'the tap'} ${killedAt - tapStarted} ms after the tap started, ${before} contacts loaded (exit ${killed.code ?? killed.signal}); ${reread || counts}`;
}
