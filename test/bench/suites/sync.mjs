// contacts sync: a recurring import of the whole account, sent whole (`contacts upsert --file`,
// the baseline) against `contacts sync` (first run: a full snapshot; second run: incremental),
// each against a fresh emulator of 20,000 bulk contacts at the API's real limit of 200
// requests/s. Then the snapshot of 1,000,000 contacts: peak memory, and its first refresh's time
// beside a plain `export contacts --no-state`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { fmt, median, timeCommand } from '../lib.mjs';
import { admin, BIN, startEmulatorProcess } from '../emulator.mjs';

const env = (emu, config) => ({
  ...process.env,
  CNV_BASE_URL: emu.url,
  CNV_API_KEY: emu.keys.full,
  CNV_CONFIG_DIR: config,
  NO_COLOR: '1',
});
const summaryOf = (stdout) => JSON.parse(stdout || '{}');

export async function run({ quick }) {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-sync-'));
  try {
    return [
      ...(await recurringImport(dir, quick ? 4_000 : 20_000, quick ? 40 : 200, quick ? 1 : 3)),
      ...(await millionSnapshot(dir, quick ? 200_000 : 1_000_000, quick ? 1 : 3)),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The account's contacts as a CSV of what an import would hold: email, status and the four bulk fields. */
async function accountFile(emu, dir, name) {
  const all = join(dir, `${name}-export.csv`);
  await timeCommand(process.execPath, [BIN, 'export', 'contacts', '--no-state', '--out', all], {
    env: env(emu, join(dir, `${name}-cfg`)),
  });
  const rows = parse(readFileSync(all), { columns: true }).filter((r) => r.email.startsWith('bulk.'));
  return rows.map((r) => ({
    email: r.email,
    'First name': r['First name'],
    'Last name': r['Last name'],
    City: r.City,
    Score: r.Score,
  }));
}

function writeCsv(path, rows) {
  const cols = Object.keys(rows[0]);
  writeFileSync(path, [cols.join(','), ...rows.map((r) => cols.map((c) => r[c]).join(','))].join('\n') + '\n');
  return path;
}

/** `n` rows changed (every step-th one from `offset`), their city tagged, on top of what `rows` says. */
function changed(rows, n, tag, offset = 0) {
  const step = Math.floor(rows.length / n);
  return rows.map((r, i) =>
    (i - offset) % step === 0 && i >= offset && (i - offset) / step < n ? { ...r, City: `${r.City} ${tag}` } : r,
  );
}

/** What an account holds, for comparison: every contact's identity and values, times left out. */
async function accountState(emu, dir, name) {
  const out = join(dir, `${name}-state.ndjson`);
  await timeCommand(process.execPath, [BIN, 'export', 'contacts', '--no-state', '--out', out], {
    env: env(emu, join(dir, `${name}-cfg2`)),
  });
  return readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const { updatedAt: _u, createdAt: _c, ...rest } = JSON.parse(l);
      return JSON.stringify(rest);
    })
    .sort()
    .join('\n');
}

async function timed(emu, args, config) {
  await admin(emu, '/_emulator/stats/reset', { method: 'POST' });
  const r = await timeCommand(process.execPath, [BIN, ...args, '--json', '--no-progress'], {
    env: env(emu, config),
    stdout: 'pipe',
  });
  const stats = await admin(emu, '/_emulator/stats');
  return { ...r, requests: stats.total, rateLimited: stats.rateLimited, summary: summaryOf(r.stdout) };
}

async function recurringImport(dir, contacts, diffs, rounds) {
  const seed = ['--seed-contacts', String(contacts)];
  // The baseline: every row sent, on a fresh account.
  const base = await startEmulatorProcess(seed);
  let baseline;
  let file;
  let afterBaseline;
  try {
    const rows = await accountFile(base, dir, 'base');
    file = writeCsv(join(dir, 'import.csv'), changed(rows, diffs, 'moved'));
    baseline = await timed(base, ['contacts', 'upsert', '--file', file], join(dir, 'base-run'));
    afterBaseline = await accountState(base, dir, 'base');
  } finally {
    await base.stop();
  }
  // contacts sync on fresh accounts (one per round): the first run takes the whole snapshot, the second only what changed.
  const firsts = [];
  const seconds = [];
  let same = true;
  for (let round = 0; round < rounds; round++) {
    const emu = await startEmulatorProcess(seed);
    try {
      const config = join(dir, `sync-run-${round}`);
      firsts.push(await timed(emu, ['contacts', 'sync', '--file', file], config));
      same &&= (await accountState(emu, dir, `sync-${round}`)) === afterBaseline;
      const rows = parse(readFileSync(file), { columns: true });
      const next = writeCsv(join(dir, `import-2-${round}.csv`), changed(rows, diffs, 'again', 1));
      seconds.push(await timed(emu, ['contacts', 'sync', '--file', next], config));
    } finally {
      await emu.stop();
    }
  }
  const middle = (runs) => [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
  const first = middle(firsts);
  const second = middle(seconds);
  const sent = (r) => (r.summary.sync ? r.summary.sync.create + r.summary.sync.update : NaN);
  const row = (name, r, target, runs) => ({
    name,
    baselineName: `\`contacts upsert --file\` of the same file (${fmt(baseline.ms / 1000, 1)} s, ${baseline.requests} requests)`,
    metric: 'ms',
    subject: r.ms,
    baseline: baseline.ms,
    ratio: r.ms / baseline.ms,
    rounds,
    targetText: `>= ${target}x faster (<= ${fmt(1 / target, 3)}x), the account as after the baseline`,
    passes: r.ms * target <= baseline.ms && same && r.rateLimited === 0,
    note:
      `${contacts.toLocaleString('en')} bulk contacts (+ the demo data) at 200 requests/s, ${diffs} rows of the file differ; the baseline once (${fmt(baseline.ms / 1000, 0)} s), each sync on its own fresh account per round, runs (s): ${runs.map((x) => fmt(x.ms / 1000, 2)).join(', ')}; ` +
      `${fmt(baseline.ms / r.ms, 1)}x faster; requests: ${r.requests} against ${baseline.requests} (${sent(r)} upserts, ` +
      `snapshot ${r.summary.sync?.snapshot?.fetchedRows} rows in ${r.summary.sync?.snapshot?.pages} pages); 429 answered: ${r.rateLimited}; ` +
      `peak RSS ${fmt(r.rssKiB / 1024)} MiB; the account's export after the sync ${same ? 'is identical to' : '**differs from**'} the one after the baseline (times left out).`,
  });
  return [
    row(
      `\`cnv contacts sync --file\`, first run (full snapshot), ${contacts.toLocaleString('en')} contacts, ${diffs} differ`,
      first,
      30,
      firsts,
    ),
    row(`\`cnv contacts sync --file\`, second run (incremental), ${diffs} new differences`, second, 50, seconds),
  ];
}

async function millionSnapshot(dir, contacts, rounds) {
  const emu = await startEmulatorProcess(['--seed-contacts', String(contacts)]);
  const small = writeCsv(join(dir, 'small.csv'), [{ email: 'bulk.5@example.com', City: 'Oslo' }]);
  const plain = [];
  const sync = [];
  try {
    for (let i = 0; i < rounds; i++) {
      plain.push(
        await timeCommand(process.execPath, [BIN, 'export', 'contacts', '--no-state', '--no-progress'], {
          env: env(emu, join(dir, `plain-${i}`)),
        }),
      );
      sync.push(
        await timeCommand(process.execPath, [BIN, 'contacts', 'sync', '--file', small, '--plan', '--no-progress'], {
          env: env(emu, join(dir, `snap-${i}`)),
        }),
      );
      rmSync(join(dir, `snap-${i}`), { recursive: true, force: true });
    }
  } finally {
    await emu.stop();
  }
  const ms = median(sync.map((r) => r.ms));
  const base = median(plain.map((r) => r.ms));
  const rss = Math.max(...sync.map((r) => r.rssKiB)) / 1024;
  return [
    {
      name: `\`cnv contacts sync\` first refresh of a ${contacts.toLocaleString('en')}-contact snapshot (full export into the snapshot, indexed)`,
      baselineName: '`cnv export contacts --no-state` of the same account to stdout',
      metric: 'ms',
      subject: ms,
      baseline: base,
      ratio: ms / base,
      rounds,
      target: 1.5,
      note: `times per run (s): sync ${sync.map((r) => fmt(r.ms / 1000, 1)).join(', ')}; export ${plain.map((r) => fmt(r.ms / 1000, 1)).join(', ')}.`,
    },
    {
      name: `peak RSS of that first sync (${contacts.toLocaleString('en')} contacts)`,
      baselineName: 'the 250 MiB ceiling',
      metric: 'MiB',
      subject: rss,
      baseline: 250,
      ratio: rss / 250,
      rounds,
      targetText: '<= 250 MiB',
      passes: rss <= 250,
      note: `peak RSS per run (MiB): ${sync.map((r) => fmt(r.rssKiB / 1024)).join(', ')}; the plain export: ${plain.map((r) => fmt(r.rssKiB / 1024)).join(', ')}.`,
    },
  ];
}
