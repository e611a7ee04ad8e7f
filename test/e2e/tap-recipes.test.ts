import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFixture } from '../helpers/emulator.js';
import { messages, records, TAP_BIN, tap, jsonFile } from '../helpers/tap.js';

// Every `sh` block of docs/singer.md and of README.md's Meltano part, read from the markdown (so
// they cannot drift), run in the documents' order against the emulator. No Meltano here: a
// stand-in `meltano` accepts only Meltano 4's commands (`meltano config set PLUGIN ...`, never
// Meltano 3's `meltano config PLUGIN set ...`) and does what the recipes rely on: `config set`
// writes the tap's config, `run` runs the tap from the state it kept (none with --full-refresh),
// `state get`/`state set` read and write that state wrapped in `singer_state`, `config test`
// runs `tap-cnv --test`. Every JSON config block of the page is run through the tap too.
const ROOT = resolve(import.meta.dirname, '../..');

function blocks(doc: string, lang: string, from?: string, to?: string): string[] {
  let md = readFileSync(join(ROOT, doc), 'utf8');
  if (from) md = md.slice(md.indexOf(from), to ? md.indexOf(to, md.indexOf(from) + from.length) : undefined);
  return [...md.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** The stand-in `meltano`: Meltano 4's command forms, and the state and config the recipes use. */
const MELTANO = `
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const [cmd, ...args] = process.argv.slice(2);
const work = process.env.WORK;
const tap = (extra, out) => execFileSync(process.execPath, [process.env.TAP_BIN, '--config', work + '/config.json', ...extra], { stdio: ['ignore', out ?? 'pipe', 'inherit'], maxBuffer: 2 ** 30 });
const refuse = (why) => { console.error('meltano (stand-in): ' + why + ': ' + [cmd, ...args].join(' ')); process.exit(2); };
const statePath = work + '/meltano-state.json';
const flags = args.filter((a) => a.startsWith('--'));
const words = args.filter((a) => !a.startsWith('--'));
if (cmd === 'add') { if (!['loader', 'extractor'].includes(words[0]) || !words[1]) refuse('meltano add TYPE NAME'); }
else if (cmd === 'config') {
  const [sub, plugin, ...rest] = words;
  if (!['set', 'list', 'test', 'print'].includes(sub)) refuse('Meltano 4: meltano config SUBCOMMAND PLUGIN (not meltano config PLUGIN SUBCOMMAND)');
  if (!plugin) refuse('no plugin');
  if (sub === 'set' && plugin === 'tap-cnv') {
    if (rest.length < 2) refuse('meltano config set PLUGIN SETTING VALUE');
    const config = JSON.parse(readFileSync(work + '/config.json', 'utf8'));
    let value = rest.slice(1).join(' ');
    try { value = JSON.parse(value); } catch {}
    config[rest[0]] = value;
    writeFileSync(work + '/config.json', JSON.stringify(config));
  } else if (sub === 'set' && rest.length < 2) refuse('meltano config set PLUGIN SETTING VALUE');
  else if (sub === 'set' && rest[0] === 'hard_delete' && JSON.parse(rest[1]) !== true) refuse('hard_delete is not the boolean true');
  else if (sub === 'test' && plugin === 'tap-cnv') tap(['--test'], 'ignore');
} else if (cmd === 'select') {
  if (words[0] !== 'tap-cnv' || !flags.includes('--list')) refuse('meltano select tap-cnv --list');
  for (const s of JSON.parse(tap(['--discover']).toString()).streams) console.log(s.tap_stream_id);
} else if (cmd === 'run') {
  if (words[0] !== 'tap-cnv' || !words[1]) refuse('meltano run [--full-refresh] tap-cnv TARGET');
  const full = flags.includes('--full-refresh');
  const state = !full && existsSync(statePath) ? ['--state', statePath] : [];
  const out = tap(state).toString();
  writeFileSync(work + '/last-run.ndjson', out);
  const lines = out.split('\\n').filter((l) => l.startsWith('{"type":"STATE"'));
  if (lines.length > 0) writeFileSync(statePath, JSON.stringify(JSON.parse(lines.at(-1)).value));
  writeFileSync(work + '/runs.log', (full ? 'full ' : 'run ') + words[1] + '\\n', { flag: 'a' });
} else if (cmd === 'state') {
  const [sub, id] = words;
  if (!id) refuse('meltano state SUBCOMMAND STATE_ID');
  if (sub === 'get') console.log(JSON.stringify({ singer_state: JSON.parse(readFileSync(statePath, 'utf8')) }));
  else if (sub === 'set') {
    const file = args[args.indexOf('--input-file') + 1];
    if (!flags.includes('--force') || !file) refuse('meltano state set --force STATE_ID --input-file FILE');
    writeFileSync(statePath, JSON.stringify(JSON.parse(readFileSync(file, 'utf8')).singer_state));
  } else refuse('meltano state get|set');
} else refuse('not a command the recipes use');
`;

/**
 * A block as a bash script: comments dropped, every command checked. A here-document's lines
 * (`cat > config.json <<'JSON'` ... `JSON`) are its text, passed as they are.
 */
function script(text: string): string {
  const out: string[] = [];
  let until: string | undefined;
  for (const raw of text.split('\n')) {
    if (until !== undefined) {
      out.push(raw);
      if (raw.trim() === until) until = undefined;
      continue;
    }
    const line = raw.replace(/\s+#\s.*$/, '').trimEnd();
    if (line === '' || line.startsWith('#')) continue;
    until = /<<-?\s*'?([A-Za-z_]+)'?/.exec(line)?.[1];
    out.push(`${line} || { echo "FAILED ($?): ${line.replace(/["$`\\]/g, '\\$&')}" >&2; exit 97; }`);
  }
  return out.join('\n');
}

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let work: string;
beforeAll(async () => {
  fx = await emulatorFixture({ rateLimit: 0 });
  work = mkdtempSync(join(tmpdir(), 'cnv-tap-recipes-'));
  writeFileSync(
    join(work, 'config.json'),
    JSON.stringify({ base_url: fx.emulator.url, api_key: fx.emulator.keys.full }),
  );
  writeFileSync(join(work, 'state.json'), '{}');
  writeFileSync(join(work, 'meltano-stub.mjs'), MELTANO);
});
afterAll(() => fx.close());

function run(text: string) {
  const prelude = [
    `tap-cnv() { node ${JSON.stringify(TAP_BIN)} "$@"; }`,
    `meltano() { node "$WORK/meltano-stub.mjs" "$@"; }`,
  ].join('\n');
  const body = script(text)
    .replaceAll('https://api.example.com', fx.emulator.url)
    .replaceAll('http://127.0.0.1:4010', fx.emulator.url)
    .replaceAll('sk_live_...', fx.emulator.keys.full);
  return execa('bash', ['-c', `${prelude}\n${body}`], {
    cwd: work,
    reject: false,
    env: { PATH: process.env.PATH, HOME: work, WORK: work, TAP_BIN, CNV_CONFIG_DIR: join(work, 'cnv') },
    extendEnv: false,
  });
}

describe("docs/singer.md's recipes work, in their order (binary, a stand-in Meltano 4)", () => {
  const shell = [
    ...blocks('docs/singer.md', 'sh'),
    ...blocks('README.md', 'sh', '## Into a warehouse (Meltano)', '\n## '),
  ];

  it('finds the blocks: the tap by hand, Meltano 4 settings, the rewind, PostgreSQL, Snowflake', () => {
    expect(shell.length).toBeGreaterThanOrEqual(6);
    expect(shell.some((b) => b.includes('meltano config set tap-cnv api_key'))).toBe(true);
    expect(shell.some((b) => b.includes('meltano state set --force'))).toBe(true);
    // No Meltano 3 form in any command of the page, the README or docs/interop.md.
    for (const doc of ['docs/singer.md', 'README.md', 'docs/interop.md', 'docs/target.md', 'docs/ledger.md'])
      for (const code of blocks(doc, '[a-z]*'))
        expect(code, doc).not.toMatch(/meltano config [a-z-]+-[a-z-]+ (set|list|test)\b/);
  });

  it('each block exits 0; the runs load, the rewind rewinds', { timeout: 120_000 }, async () => {
    // The rewind edits the state a run saved: it runs after the runs.
    const rewind = shell.filter((b) => b.includes('meltano state'));
    for (const block of [...shell.filter((b) => !rewind.includes(b)), ...rewind]) {
      const res = await run(block);
      expect(res.exitCode, `${block}\n${res.stderr}`).toBe(0);
    }
    // The next run reads the rewound bookmark: the custom events from its time, once more.
    const last = await run('meltano run tap-cnv target-postgres');
    expect(last.exitCode, last.stderr).toBe(0);
    const since = Date.parse('2025-03-01T00:00:00Z');
    const again = records(messages(readFileSync(join(work, 'last-run.ndjson'), 'utf8')), 'custom_events');
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((e) => Date.parse(e.occurredAt) >= since)).toBe(true);
    expect(readFileSync(join(work, 'runs.log'), 'utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(readFileSync(join(work, 'config.json'), 'utf8'))).toMatchObject({
      api_key: fx.emulator.keys.full,
      base_url: fx.emulator.url,
    });
    expect(readFileSync(join(work, 'SETTINGS.md'), 'utf8')).toMatch(/^# `tap-cnv`/);
    const messagesFile = messages(readFileSync(join(work, 'messages.ndjson'), 'utf8'));
    expect(messagesFile.some((m) => m.type === 'STATE')).toBe(true);
  });

  it('every JSON config of the page (stream maps) is accepted and does what it says', async () => {
    const configs = blocks('docs/singer.md', 'json').map((t) => JSON.parse(t) as Record<string, unknown>);
    expect(configs.length).toBeGreaterThanOrEqual(1);
    for (const settings of configs) {
      const config = jsonFile('config.json', {
        base_url: fx.emulator.url,
        api_key: fx.emulator.keys.full,
        ...settings,
      });
      const r = await tap(['--config', config]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('warning');
      const msgs = messages(r.stdout);
      expect(records(msgs, 'contacts_pii').length).toBe(records(msgs, 'contacts').length);
      expect(records(msgs, 'events').length).toBeGreaterThan(0);
      expect(msgs.some((m) => m.stream === 'email_events')).toBe(false);
    }
  });
});
