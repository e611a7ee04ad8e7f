// `cnv tap` (tap-cnv) emitting the contacts of a million-row account as Singer messages to
// /dev/null, against `cnv export contacts --no-state > FILE` of the same account (the same
// pages, written as the API sent them); and its peak memory against the same run over 10,000
// contacts. CNV_BENCH_TAP_ROWS sets the row count (a quick check on a shared machine).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, fmt, median, timeCommand } from '../lib.mjs';
import { BIN, startEmulatorProcess } from '../emulator.mjs';

const TAP = fileURLToPath(new URL('../../../bin/tap-cnv.js', import.meta.url));
const MiB = 1024;

/** A config and a catalog selecting contacts only, for the emulator `emu`, in `dir`. */
function tapFiles(emu, dir, env) {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ base_url: emu.url, api_key: emu.keys.full }));
  const catalog = JSON.parse(
    execFileSync(process.execPath, [TAP, '--config', config, '--discover'], {
      env,
      maxBuffer: 64 * 2 ** 20,
    }).toString(),
  );
  for (const s of catalog.streams)
    s.metadata.find((m) => m.breadcrumb.length === 0).metadata.selected = s.tap_stream_id === 'contacts';
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  return ['--config', config, '--catalog', join(dir, 'catalog.json')];
}

export async function run({ rounds, quick }) {
  const bulk = Number(process.env.CNV_BENCH_TAP_ROWS) || (quick ? 200_000 : 1_000_000);
  const n = Math.min(rounds, quick ? 2 : 4);
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-tap-'));
  const emu = await startEmulatorProcess(['--seed-contacts', String(bulk), '--rate-limit', '0']);
  const small = await startEmulatorProcess(['--seed-contacts', '10000', '--rate-limit', '0']);
  const results = [];
  try {
    const env = { ...process.env, CNV_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
    const label = `${bulk.toLocaleString('en')} contacts`;
    const tapArgs = tapFiles(emu, mkdtempSync(join(dir, 'big-')), env);
    const smallArgs = tapFiles(small, mkdtempSync(join(dir, 'small-')), env);
    const tap =
      (args, stdout = '/dev/null') =>
      () =>
        timeCommand(process.execPath, [TAP, ...args], { env, stdout });
    const exportRun = () =>
      timeCommand(process.execPath, [BIN, 'export', 'contacts', '--format', 'ndjson', '--no-state', '--no-progress'], {
        env: { ...env, CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full },
        stdout: join(dir, 'export.ndjson'),
      });

    // Once, into a file: the tap emits a RECORD for each row the export writes.
    await tap(tapArgs, join(dir, 'tap.ndjson'))();
    const records = readFileSync(join(dir, 'tap.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"RECORD"')).length;
    await exportRun();
    const rows = readFileSync(join(dir, 'export.ndjson'), 'utf8').split('\n').length - 1;
    if (records !== rows) throw new Error(`the tap emitted ${records} records, the export wrote ${rows} rows`);
    rmSync(join(dir, 'tap.ndjson'));

    const time = await compare({
      name: `\`tap-cnv --config C --catalog C > /dev/null\` (contacts), ${label}`,
      baseline: exportRun,
      subject: tap(tapArgs),
      rounds: n,
      warmup: 1,
    });
    results.push({
      ...time,
      baselineName: '`cnv export contacts --format ndjson --no-state > FILE`, same account',
      target: 1.2,
      note: `${records.toLocaleString('en')} RECORDs (fields keyed by field key, numbers exact, a STATE after each page of 5,000) against the export's rows as the API sent them.`,
    });

    const smallRss = [];
    for (let i = 0; i < Math.max(3, n); i++) smallRss.push((await tap(smallArgs)()).rssKiB);
    const bigRss = median(time.runs.subject.map((r) => r.rssKiB));
    results.push({
      name: `peak RSS of that tap run (${label})`,
      baselineName: 'the same tap run over 10,000 contacts',
      metric: 'MiB',
      subject: bigRss / MiB,
      baseline: median(smallRss) / MiB,
      ratio: bigRss / median(smallRss),
      rounds: n,
      target: 1.3,
      note: `peak RSS per run (MiB): ${time.runs.subject.map((r) => fmt(r.rssKiB / MiB, 0)).join(', ')}; 10,000 contacts: ${smallRss.map((k) => fmt(k / MiB, 0)).join(', ')}.`,
    });
  } finally {
    await Promise.all([emu.stop(), small.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
