// Exports for data pipelines (issue 14): gzip output against the plain export in the same run,
// and the nine email event types in one command against the slowest single type.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compare, fmt, timeCommand } from '../lib.mjs';
import { BIN, startEmulatorProcess } from '../emulator.mjs';

export async function run({ rounds, quick }) {
  const n = Math.min(rounds, quick ? 2 : 4);
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-pipelines-'));
  const results = [];
  try {
    results.push(await gzipRow(dir, n, quick));
    results.push(await emailTypesRow(dir, n, quick));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

const envOf = (emu, dir) => ({
  ...process.env,
  CNV_BASE_URL: emu.url,
  CNV_API_KEY: emu.keys.full,
  CNV_CONFIG_DIR: join(dir, 'config'),
  NO_COLOR: '1',
});

/** A million contacts as NDJSON into FILE.gz against the same export into a plain FILE, alternated. */
async function gzipRow(dir, n, quick) {
  const bulk = quick ? 200_000 : 1_000_000;
  const emu = await startEmulatorProcess(['--seed-contacts', String(bulk), '--rate-limit', '0']);
  try {
    const env = envOf(emu, dir);
    const cnv = (file, key) => () =>
      timeCommand(
        process.execPath,
        [BIN, 'export', 'contacts', '--out', file, '--limit', '5000', '--full', '--state-key', key, '--no-progress'],
        { env },
      );
    const plain = join(dir, 'contacts.ndjson');
    const gz = join(dir, 'contacts.ndjson.gz');
    const r = await compare({
      name: `\`cnv export contacts --out FILE.ndjson.gz\`, ${bulk.toLocaleString('en')} rows`,
      baseline: cnv(plain, 'bench-plain'),
      subject: cnv(gz, 'bench-gz'),
      rounds: n,
      warmup: 1,
    });
    const plainBytes = statSync(plain).size;
    const gzBytes = statSync(gz).size;
    if (!gunzipSync(readFileSync(gz)).equals(readFileSync(plain)))
      throw new Error('the .gz export does not decompress to the plain export');
    return {
      ...r,
      baselineName: 'the same export into a plain .ndjson file',
      target: 1.5,
      note: `gzip level 3, one member per page of 5,000 rows; ${fmt(gzBytes / 2 ** 20, 1)} MiB against ${fmt(plainBytes / 2 ** 20, 0)} MiB plain: ${fmt((100 * gzBytes) / plainBytes, 1)}% of the size; decompresses to the plain file byte for byte.`,
    };
  } finally {
    await emu.stop();
  }
}

/** `--type all` into one file against the slowest single type (EMAIL_SEND), 50 ms latency per page. */
async function emailTypesRow(dir, n, quick) {
  const events = quick ? 18_000 : 36_000; // plus the demo's 4,000; each type gets a ninth of the bulk
  const emu = await startEmulatorProcess(['--seed-events', String(events), '--latency', '50']);
  try {
    const env = envOf(emu, dir);
    const cnv = (type, file, key) => () =>
      timeCommand(
        process.execPath,
        [
          BIN,
          'export',
          'email-events',
          '--type',
          type,
          '--out',
          file,
          '--limit',
          '200',
          '--full',
          '--state-key',
          key,
          '--no-progress',
        ],
        { env },
      );
    const all = join(dir, 'email-all.ndjson');
    const send = join(dir, 'email-send.ndjson');
    const r = await compare({
      name: '`cnv export email-events --type all --out FILE`, nine types',
      baseline: cnv('EMAIL_SEND', send, 'bench-send'),
      subject: cnv('all', all, 'bench-all'),
      rounds: n,
      warmup: 1,
    });
    const lines = (f) => readFileSync(f, 'utf8').split('\n').length - 1;
    const total = lines(all);
    if (total !== events + 4000) throw new Error(`--type all wrote ${total} rows, expected ${events + 4000}`);
    // The sum of nine: what a cron loop over the types costs, measured once per type.
    let sum = 0;
    for (const type of [
      'EMAIL_DELIVERY',
      'EMAIL_OPEN',
      'EMAIL_CLICK',
      'EMAIL_BOUNCE',
      'EMAIL_SOFT_BOUNCE',
      'EMAIL_COMPLAINT',
      'EMAIL_UNSUBSCRIBE_ALL',
      'EMAIL_TOPIC_UNSUBSCRIBE',
    ]) {
      sum += (await cnv(type, join(dir, `email-${type}.ndjson`), `bench-${type}`)()).ms;
    }
    sum += r.baseline;
    return {
      ...r,
      baselineName: 'the slowest single type (EMAIL_SEND) alone, same flags',
      target: 1.3,
      note: `${total.toLocaleString('en')} rows (EMAIL_SEND ${lines(send).toLocaleString('en')}), pages of 200, emulator latency 50 ms per page and its 200 requests/s limit; the nine types one after another (a cron loop) took ${fmt(sum / 1000, 1)} s, ${fmt(sum / r.subject, 1)}x the combined run.`,
    };
  } finally {
    await emu.stop();
  }
}
