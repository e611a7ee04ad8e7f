// Batches: `contacts upsert --file` under the 200 rps limit, `audience add --batch` against a
// minimal script sending the same requests, and `records upsert` with recurring keys against
// the same file with unique keys. Input files are generated in a temp dir.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, fmt, timeCommand } from '../lib.mjs';
import { admin, BIN, startEmulatorProcess } from '../emulator.mjs';

const BATCH_MIN = fileURLToPath(new URL('../baselines/batch-min.mjs', import.meta.url));
const AUDIENCE = 'c1000000-0000-4000-8000-000000000003';
const CUSTOM_OBJECT = 'c0000000-0000-4000-8000-000000000001';

/** A small deterministic PRNG (mulberry32), so every run sends the same files. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function run({ rounds, quick }) {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-batches-'));
  const results = [];
  try {
    results.push(await upsertRate(dir, quick));
    results.push(await sharedRate(dir, quick));
    results.push(...(await audienceAndRecords(dir, rounds, quick)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** One run of 10,000 upserts against the emulator's 200 rps limit: it takes ~50 s, so once. */
async function upsertRate(dir, quick) {
  const rows = quick ? 2_000 : 10_000;
  const file = join(dir, 'contacts.csv');
  const lines = ['email,subscriptionStatus,fields.city,fields.score'];
  for (let i = 0; i < rows; i++) lines.push(`bench.upsert.${i}@example.com,SUBSCRIBED,City ${i % 50},${i % 101}`);
  writeFileSync(file, lines.join('\n') + '\n');
  const emu = await startEmulatorProcess([]);
  try {
    const env = benchEnv(emu, dir);
    await admin(emu, '/_emulator/stats/reset', { method: 'POST' });
    const r = await timeCommand(
      process.execPath,
      [BIN, 'contacts', 'upsert', '--file', file, '--json', '--no-progress'],
      { env, stdout: 'pipe' },
    );
    const stats = await admin(emu, '/_emulator/stats');
    // --json: the run's summary document on stdout.
    const summary = (() => {
      try {
        return JSON.parse(r.stdout);
      } catch {
        return {};
      }
    })();
    const rate = rows / (r.ms / 1000);
    const ok = summary.succeeded === rows;
    return {
      name: `\`cnv contacts upsert --file\`, ${rows.toLocaleString('en')} rows, emulator limiting to 200 requests/s`,
      baselineName: 'the 200 requests/s ceiling',
      metric: 'rows/s',
      subject: rate,
      baseline: 200,
      ratio: rate / 200,
      rounds: 1,
      targetText: '>= 190 rows/s (0.95x), no 429',
      passes: ok && rate >= 190 && stats.rateLimited === 0,
      note:
        `whole process ${fmt(r.ms / 1000, 2)} s for ${rows} requests (one run: it is ${fmt(r.ms / 1000, 0)} s long by itself); ` +
        `rate inside the run ${fmt(summary.rowsPerSecond ?? NaN)} rows/s; 429 answered: ${stats.rateLimited}; requests: ${stats.total}; ` +
        `succeeded ${summary.succeeded}/${rows}; peak RSS ${fmt(r.rssKiB / 1024)} MiB.`,
    };
  } finally {
    await emu.stop();
  }
}

/**
 * Four `contacts upsert --file` runs at once with one key, against the emulator's 200 rps limit:
 * they must share the limit (no 429), use it (>= 190 rows/s together) and share it fairly.
 */
async function sharedRate(dir, quick) {
  const each = quick ? 500 : 2_500;
  const files = [0, 1, 2, 3].map((p) => {
    const file = join(dir, `shared-${p}.csv`);
    const lines = ['email'];
    for (let i = 0; i < each; i++) lines.push(`bench.shared.${p}.${i}@example.com`);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  });
  const emu = await startEmulatorProcess([]);
  try {
    const env = benchEnv(emu, dir);
    await admin(emu, '/_emulator/stats/reset', { method: 'POST' });
    const started = performance.now();
    const runs = await Promise.all(
      files.map((f) =>
        timeCommand(process.execPath, [BIN, 'contacts', 'upsert', '--file', f, '--json', '--no-progress'], {
          env,
          stdout: 'pipe',
        }),
      ),
    );
    const totalMs = performance.now() - started;
    const stats = await admin(emu, '/_emulator/stats');
    const rate = (4 * each) / (totalMs / 1000);
    // Fair: each run took about as long as the whole (they ran side by side), none much longer.
    const slowest = Math.max(...runs.map((r) => r.ms));
    const fastest = Math.min(...runs.map((r) => r.ms));
    // --json: each run's summary document on stdout (on stderr before issue 31, which this check still read).
    const ok = runs.every((r) => {
      try {
        return JSON.parse(r.stdout).succeeded === each;
      } catch {
        return false;
      }
    });
    return {
      name: `four \`cnv contacts upsert --file\` runs at once, ${each.toLocaleString('en')} rows each, one key, emulator limiting to 200 requests/s`,
      baselineName: 'the 200 requests/s ceiling',
      metric: 'rows/s',
      subject: rate,
      baseline: 200,
      ratio: rate / 200,
      rounds: 1,
      targetText: '>= 190 rows/s together (0.95x), no 429, slowest run <= 1.3x fastest',
      passes: ok && rate >= 190 && stats.rateLimited === 0 && slowest <= 1.3 * fastest,
      note:
        `${fmt(totalMs / 1000, 1)} s for ${4 * each} requests; runs took ${runs.map((r) => fmt(r.ms / 1000, 1)).join(', ')} s ` +
        `(slowest/fastest ${fmt(slowest / fastest, 2)}x); 429 answered: ${stats.rateLimited}; requests: ${stats.total}.`,
    };
  } finally {
    await emu.stop();
  }
}

async function audienceAndRecords(dir, rounds, quick) {
  const emu = await startEmulatorProcess(['--rate-limit', '0']);
  const out = [];
  try {
    const env = benchEnv(emu, dir);
    // Audience batch: 100,000 rows (100 requests of 1,000) of existing contacts' emails.
    const contacts = await admin(emu, '/_emulator/state/contacts');
    const emails = [...new Set(contacts.map((c) => c.email).filter((e) => typeof e === 'string'))];
    const audienceRows = quick ? 20_000 : 100_000;
    const audienceFile = join(dir, 'audience.csv');
    const lines = ['email'];
    for (let i = 0; i < audienceRows; i++) lines.push(emails[i % emails.length]);
    writeFileSync(audienceFile, lines.join('\n') + '\n');
    const audience = await compare({
      name: `\`cnv audience add --batch\`, ${audienceRows.toLocaleString('en')} rows (${audienceRows / 1000} requests)`,
      baseline: () =>
        timeCommand(process.execPath, [BATCH_MIN, emu.url, emu.keys.full, AUDIENCE, audienceFile, '8', '195'], { env }),
      subject: () =>
        timeCommand(process.execPath, [BIN, 'audience', 'add', AUDIENCE, '--batch', audienceFile, '--no-progress'], {
          env,
        }),
      rounds,
      warmup: 1,
    });
    out.push({
      ...audience,
      baselineName: "minimal undici script, same requests, 8 in flight, paced at cnv's 195/s (baselines/batch-min.mjs)",
      target: 1.1,
    });

    // Records: 50,000 rows, keys recurring at random across the file, against the same rows with unique keys.
    const recordRows = quick ? 10_000 : 50_000;
    const pool = Math.max(1, Math.floor(recordRows / 10));
    const random = prng(6);
    const recurring = join(dir, 'records-recurring.csv');
    const unique = join(dir, 'records-unique.csv');
    const rec = ['clientDedupKey,planName,seats,autoRenew'];
    const uni = [rec[0]];
    for (let i = 0; i < recordRows; i++) {
      const rest = `Plan ${i % 7},${1 + (i % 50)},${i % 2 === 0}`;
      rec.push(`bench-r-${Math.floor(random() * pool)},${rest}`);
      uni.push(`bench-u-${i},${rest}`);
    }
    writeFileSync(recurring, rec.join('\n') + '\n');
    writeFileSync(unique, uni.join('\n') + '\n');
    const records = await compare({
      name: `\`cnv records upsert\`, ${recordRows.toLocaleString('en')} rows, ${pool.toLocaleString('en')} keys recurring at random`,
      baseline: () =>
        timeCommand(process.execPath, [BIN, 'records', 'upsert', CUSTOM_OBJECT, '--file', unique, '--no-progress'], {
          env,
        }),
      subject: () =>
        timeCommand(process.execPath, [BIN, 'records', 'upsert', CUSTOM_OBJECT, '--file', recurring, '--no-progress'], {
          env,
        }),
      rounds,
      warmup: 1,
    });
    out.push({ ...records, baselineName: 'the same rows with unique keys', target: 1.3 });
  } finally {
    await emu.stop();
  }
  return out;
}

function benchEnv(emu, dir) {
  return {
    ...process.env,
    CNV_BASE_URL: emu.url,
    CNV_API_KEY: emu.keys.full,
    CNV_CONFIG_DIR: join(dir, 'config'),
    NO_COLOR: '1',
  };
}
