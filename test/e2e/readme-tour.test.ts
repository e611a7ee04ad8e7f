import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Issue 47: the README's tour blocks, read from the markdown and run in order through the binary
// against the emulator: each command exits 0 unless its line says `# exits N` (the audience add
// of a file with a bad row, on purpose), and a block shows the files it needs (the tap's
// config.json is written before `tap-cnv --config config.json`). Before, the audience add exited 6
// without a word and config.json was never shown. The export part is test/e2e/export-recipes.test.ts's.
const ROOT = resolve(import.meta.dirname, '../..');
const TAP = resolve(import.meta.dirname, '../../bin/tap-cnv.js');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const fx = useEmulator({ rateLimit: 0 });

/** The ```sh blocks of the README between two headings' texts. */
function blocks(from: string, to: string): string[] {
  const start = README.indexOf(from);
  const part = README.slice(start, README.indexOf(to, start));
  return [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** A block as a bash script: each command checked against the exit code its line names (`# exits N`), else 0. */
function script(block: string): string {
  const out: string[] = [];
  let heredoc: string | undefined;
  for (const raw of block.split('\n')) {
    if (heredoc !== undefined) {
      out.push(raw);
      if (raw === heredoc) heredoc = undefined;
      continue;
    }
    const line = raw.replace(/\s+#\s.*$/, '').trimEnd();
    if (line === '' || line.startsWith('#')) continue;
    const opens = /<<'(\w+)'$/.exec(line);
    if (opens) {
      heredoc = opens[1];
      out.push(line);
      continue;
    }
    const expected = Number(/#.*\bexits (\d+)\b/.exec(raw)?.[1] ?? 0);
    const shown = line.replace(/["$`\\]/g, '\\$&');
    out.push(
      `${line}`,
      `code=$?; [ "$code" -eq ${expected} ] || { echo "FAILED (exit $code, the README says ${expected}): ${shown}" >&2; exit 97; }`,
    );
  }
  return out.join('\n');
}

describe("the README's tour, bulk work, sync and tap blocks (binary)", () => {
  // The ledger's nightly recipes (their files under /data) are ledger-recipes.test.ts's.
  const tour = blocks('## Five-minute tour', 'keeps a **ledger**').filter((b) => !b.includes('cnv emulator --port'));
  const tap = blocks('## Into a warehouse (Meltano)', '\n## ');

  it('finds them: the tour, bulk work, columns, sync, and the tap with its config.json', () => {
    expect(tour.length).toBeGreaterThanOrEqual(4);
    expect(tour.some((b) => /audience add .*# exits 6 on purpose/.test(b))).toBe(true);
    expect(tap).toHaveLength(1);
    expect(tap[0]).toMatch(/cat > config\.json <<'JSON'\n\{ "api_key": .*"base_url": .*\}\nJSON\n/);
  });

  it('each command exits as its line says, in order', { timeout: 60_000 }, async () => {
    const work = mkdtempSync(join(tmpdir(), 'cnv-readme-'));
    const prelude = [
      `cnv() { node ${JSON.stringify(BIN)} "$@"; }`,
      `tap-cnv() { node ${JSON.stringify(TAP)} "$@"; }`,
      // Meltano is not installed here (npm run interop runs the real one): the stand-in takes the command.
      'meltano() { echo "meltano $*" >> "$WORK/meltano.log"; }',
    ].join('\n');
    // One shell for them all, as a reader's session: the tour's `export CNV_API_KEY=...` holds for what follows.
    const body = [...tour, ...tap].map(script).join('\n').replaceAll('http://127.0.0.1:4010', fx.emulator.url);
    const res = await execa('bash', ['-c', `${prelude}\n${body}`], {
      cwd: work,
      reject: false,
      env: { ...process.env, CNV_CONFIG_DIR: fx.configDir, WORK: work, CI: 'true' },
      extendEnv: false,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(work, 'catalog.json'), 'utf8')).streams.length).toBeGreaterThan(0);
    expect(readFileSync(join(work, 'meltano.log'), 'utf8')).toBe(
      'meltano config set tap-cnv api_key sk_live_...\nmeltano run tap-cnv target-postgres\n',
    );
  });
});
