// The tap through Meltano: where the time of `meltano run tap-cnv target-jsonl` goes. The same N
// contacts (bulk contacts plus the demo data), selected alone, four ways: cnv's export to a
// file (the baseline), the tap alone to a file (its records counted), the tap piped straight
// into target-jsonl, and `meltano run --full-refresh tap-cnv target-jsonl`. Shown for
// information (no targets): the steps say what the tap, the target and Meltano each cost. The
// tap's 1.2x target and its memory are the tap suite's. The venvs are npm run interop's.
//   CNV_BENCH_MELTANO_ROWS: bulk contacts (default 1,000,000; --quick 20,000)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeProject } from '../../../scripts/interop/meltano.mjs';
import { skipReason } from '../../../scripts/interop/probe.mjs';
import { ensureVenvs } from '../../../scripts/interop/venvs.mjs';
import { compare, fmt, timeCommand } from '../lib.mjs';
import { BIN, startEmulatorProcess } from '../emulator.mjs';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const TAP = join(REPO, 'bin', 'tap-cnv.js');
const lineCount = (file) => readFileSync(file, 'utf8').split('\n').length - 1;

/** The tap's catalog with only contacts selected. */
async function contactsCatalog(configFile, dir) {
  const { stdout } = await timeCommand(process.execPath, [TAP, '--config', configFile, '--discover'], {
    stdout: 'pipe',
  });
  const catalog = JSON.parse(stdout);
  for (const s of catalog.streams) {
    const top = s.metadata.find((m) => m.breadcrumb.length === 0);
    top.metadata.selected = s.tap_stream_id === 'contacts';
  }
  const file = join(dir, 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

export async function run({ rounds, quick }) {
  const bulk = Number(process.env.CNV_BENCH_MELTANO_ROWS ?? (quick ? 20_000 : 1_000_000));
  const n = Math.min(rounds, quick ? 1 : 2);
  const { python, reason } = await skipReason();
  if (reason) {
    // As npm run interop: a machine whose pip cannot install Meltano shows no rows of this suite.
    console.error(`  meltano: skipped: ${reason}`);
    return [];
  }
  const venvs = await ensureVenvs(python);
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-meltano-'));
  const emu = await startEmulatorProcess(['--seed-contacts', String(bulk), '--rate-limit', '0', '--quiet']);
  try {
    const config = join(dir, 'tap-config.json');
    writeFileSync(
      config,
      JSON.stringify({ base_url: emu.url, api_key: emu.keys.full, start_date: '2000-01-01T00:00:00Z' }),
      { mode: 0o600 },
    );
    const catalog = await contactsCatalog(config, dir);
    const env = {
      ...process.env,
      CNV_BASE_URL: emu.url,
      CNV_API_KEY: emu.keys.full,
      CNV_CONFIG_DIR: join(dir, 'cnv-config'),
      NO_COLOR: '1',
    };
    const jsonlDir = join(dir, 'jsonl');
    const out = join(jsonlDir, 'contacts.jsonl');
    const meltano = writeProject(join(dir, 'project'), {
      tap: TAP,
      venvs,
      jsonlDir,
      emulator: emu,
      select: ['contacts.*'],
    });
    const jsonlConfig = join(dir, 'target-jsonl.json');
    writeFileSync(jsonlConfig, JSON.stringify({ destination_path: join(dir, 'piped'), do_timestamp_file: false }));
    rmSync(join(dir, 'piped'), { recursive: true, force: true });

    const exportRun = () =>
      timeCommand(process.execPath, [BIN, 'export', 'contacts', '--no-state', '--format', 'ndjson', '--no-progress'], {
        env,
        stdout: join(dir, 'export.ndjson'),
      });
    const tapRun = () =>
      timeCommand(process.execPath, [TAP, '--config', config, '--catalog', catalog], {
        stdout: join(dir, 'tap.singer'),
      });
    const piped = () => {
      rmSync(join(dir, 'piped'), { recursive: true, force: true });
      const script = `set -o pipefail; mkdir -p "$4" && "$1" "$2" --config "$3" --catalog "$5" | "$6" --config "$7"`;
      return timeCommand('bash', [
        '-c',
        script,
        'bench',
        process.execPath,
        TAP,
        config,
        join(dir, 'piped'),
        catalog,
        venvs['target-jsonl'].exe,
        jsonlConfig,
      ]);
    };
    const viaMeltano = async () => {
      rmSync(out, { force: true });
      const t = process.hrtime.bigint();
      await meltano(['run', '--full-refresh', 'tap-cnv', 'target-jsonl']);
      return { ms: Number(process.hrtime.bigint() - t) / 1e6 };
    };

    const rows = `${bulk.toLocaleString('en')} bulk contacts (and the demo's)`;
    const results = [];
    const tap = await compare({
      name: `\`tap-cnv\` (contacts selected) > FILE, ${rows}`,
      baseline: exportRun,
      subject: tapRun,
      rounds: n,
      warmup: 0,
    });
    const exported = lineCount(join(dir, 'export.ndjson'));
    const records = readFileSync(join(dir, 'tap.singer'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"RECORD"')).length;
    if (records !== exported) throw new Error(`the tap emitted ${records} records, the export ${exported} rows`);
    results.push({
      ...tap,
      baselineName: '`cnv export contacts --no-state` > FILE',
      targetText: '— (where the time goes)',
      passes: null,
      note: `${exported.toLocaleString('en')} contacts.`,
    });

    const pipe = await compare({
      name: `\`tap-cnv | target-jsonl\` (no Meltano), ${rows}`,
      baseline: tapRun,
      subject: piped,
      rounds: n,
      warmup: 0,
    });
    const written = lineCount(join(dir, 'piped', 'contacts.jsonl'));
    if (written !== exported) throw new Error(`target-jsonl wrote ${written} lines, the export ${exported}`);
    results.push({
      ...pipe,
      baselineName: 'the tap alone > FILE',
      targetText: '— (where the time goes)',
      passes: null,
      note: `target-jsonl's share: ${fmt(100 * (1 - pipe.baseline / pipe.subject), 0)}% of the pipe's time.`,
    });

    const whole = await compare({
      name: `\`meltano run --full-refresh tap-cnv target-jsonl\`, ${rows}`,
      baseline: piped,
      subject: viaMeltano,
      rounds: n,
      warmup: 0,
    });
    const viaCount = lineCount(out);
    if (viaCount !== exported) throw new Error(`meltano run wrote ${viaCount} lines, the export ${exported}`);
    results.push({
      ...whole,
      baselineName: '`tap-cnv | target-jsonl` (no Meltano)',
      targetText: '— (where the time goes)',
      passes: null,
      note: `Meltano's own cost (start-up, discovery, the catalog, relaying the messages): ${fmt((whole.subject - whole.baseline) / 1000, 1)} s; the tap's share of the whole: ${fmt((100 * tap.subject) / whole.subject, 0)}%.`,
    });
    return results;
  } finally {
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
