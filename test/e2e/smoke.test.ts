import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES as AU,
  FIXTURE_CONTACTS as FX,
  FIXTURE_CUSTOM_OBJECT as CO,
  FIXTURE_FORMS as FORMS,
  FIXTURE_WORKFLOWS as WF,
} from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// One run per command group through bin/cnv.js, as a user starts it: the launcher, real pipes
// and the bundle. What each command does is tested in-process (test/commands/), where it is cheap.

const { write } = batchFiles('cnv-smoke-');
const fx = useEmulator();

const json = (s: string) => JSON.parse(s);

describe('each command group through the binary', () => {
  it('contacts: upsert, then get prints only the data on stdout', async () => {
    const up = await cnv(['contacts', 'upsert', '--email', 'smoke@example.com', '--field', 'city=Oslo'], {
      env: fx.env,
    });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(json(up.stdout).contactCreated).toBe(true);
    const got = await cnv(['contacts', 'get', '--email', 'smoke@example.com'], { env: fx.env });
    expect([got.exitCode, got.stderr]).toEqual([0, '']);
    expect(json(got.stdout)).toMatchObject({ email: 'smoke@example.com', fields: { city: 'Oslo' } });
  });

  // The warning is Node's own, printed by the process: only a real process can show it.
  it('contacts upsert --file at the default --concurrency 16 prints no MaxListenersExceededWarning', async () => {
    const lines = ['email'];
    for (let i = 0; i < 60; i++) lines.push(`listeners.${i}@example.com`);
    const res = await cnv(['contacts', 'upsert', '--file', write('many.csv', lines.join('\n') + '\n')], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(0);
    expect(res.stderr).not.toMatch(/Warning/);
    expect(res.stderr).toMatch(/60 rows: 60 succeeded/);
  });

  it('events track', async () => {
    const res = await cnv(['events', 'track', '--event', 'smoke_tested', '--email', FX.ada.email], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout)).toMatchObject({ cnvContactId: FX.ada.id, cnvEventId: expect.any(String) });
  });

  it('fields list', async () => {
    const res = await cnv(['fields', 'list', '--limit', '100'], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout).map((f: { key: string }) => f.key)).toContain('city');
  });

  it('records upsert --file - reads NDJSON from a real pipe', async () => {
    const input = JSON.stringify({ clientDedupKey: 'smoke-1', seats: 2 }) + '\n';
    const res = await cnv(['records', 'upsert', CO.id, '--file', '-'], { env: fx.env, input });
    expect(res.exitCode, res.stderr).toBe(0);
    const [record] = await fx.admin('GET', `/_emulator/state/records?customObjectId=${CO.id}&clientDedupKey=smoke-1`);
    expect(record.fields).toEqual({ seats: 2 });
  });

  it('workflows trigger', async () => {
    const res = await cnv(['workflows', 'trigger', WF.welcome.id, '--email', FX.grace.email], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({ workflowId: WF.welcome.id, triggered: true });
  });

  it('audience add', async () => {
    const res = await cnv(['audience', 'add', AU.followUp.id, '--email', FX.grace.email], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout)).toEqual({ added: true, cnvContactId: FX.grace.id });
  });

  it('campaigns list', async () => {
    const res = await cnv(['campaigns', 'list', '--limit', '2', '--json'], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout)).toHaveLength(2);
  });

  it('forms get', async () => {
    const res = await cnv(['forms', 'get', FORMS.contactUs.id], { env: fx.env });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout).id).toBe(FORMS.contactUs.id);
  });

  it('api --input - sends the body read from a real pipe', async () => {
    const input = JSON.stringify({ email: FX.linus.email });
    const res = await cnv(['api', 'POST', `/v2/audiences/${AU.followUp.id}/contacts`, '--input', '-'], {
      env: fx.env,
      input,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(json(res.stdout).data).toMatchObject({ cnvContactId: FX.linus.id });
  });

  it('config set-key reads the key from a real pipe, stores it 0600 and never prints it', async () => {
    const dir = tempConfigDir();
    const key = fx.emulator.keys.full;
    const set = await cnv(['config', 'set-key', '--base-url', fx.emulator.url], {
      env: { CNV_CONFIG_DIR: dir },
      input: key + '\n',
    });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(key);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.apiKey).toBe(key);
  });

  it('help and version', async () => {
    const help = await cnv(['contacts', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/\nEXAMPLES\n/);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await cnv(['--version'])).toMatchObject({ exitCode: 0, stdout: `${pkg.version}\n` });
  });
  it('a command loads no Node.js built-in it does not use: `contacts get` starts without node:child_process (only a pager spawns)', async () => {
    // process.moduleLoadList names every built-in the process loaded; a static import of
    // node:child_process (with dgram, tty and socket internals) cost every start-up ~7%.
    const loaded = await contactsGetWith(
      (list) =>
        `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((m) => /child_process|dgram/.test(m))).toEqual([]);
  });

  it('a command loads only what it runs: `contacts get` reads the core and its own chunks, no other command, undici, conf or emulator', async () => {
    // The launcher compiles each file of the bundle it loads with vm.Script (src/runtime/load-bundle.ts):
    // a hook on it lists them. One file of everything made each run pay for every command (issue 43).
    const loaded = (
      await contactsGetWith((list) =>
        [
          "const vm = require('node:vm'); const files = []; const Script = vm.Script;",
          'vm.Script = function (source, options) { files.push(options.filename); return new Script(source, options); };',
          `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, files.join('\\n')));`,
        ].join('\n'),
      )
    ).filter((f) => /\.cjs$/.test(f));
    expect(loaded.map((f) => basename(f))).toContain('cnv.cjs');
    const text = loaded.map((f) => readFileSync(f, 'latin1')).join('\n');
    const modules = [...text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]);
    expect(modules).toContain('src/commands/contacts/get.ts');
    expect(modules.filter((m) => m.startsWith('src/commands/') && m !== 'src/commands/contacts/get.ts')).toEqual([]);
    expect(
      modules.filter((m) =>
        /^(node_modules\/(undici|conf|ajv|semver)\/|src\/(emulator|exporter|sync|tap|batch)\/)/.test(m),
      ),
    ).toEqual([]);
    const bundle = readdirSync(dirname(loaded[0])).filter((f) => f === 'cnv.cjs' || f.startsWith('chunk-'));
    const size = (files: string[]) => files.reduce((n, f) => n + statSync(f).size, 0);
    expect(size(loaded)).toBeLessThan(size(bundle.map((f) => join(dirname(loaded[0]), f))) / 3);
  });

  /** The lines a `--require` hook (made by `hook` for the file it writes) wrote during `cnv contacts get`. */
  async function contactsGetWith(hook: (list: string) => string): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-smoke-hook-'));
    const list = join(dir, 'list.txt');
    writeFileSync(join(dir, 'hook.cjs'), hook(list));
    const got = await cnv(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, NODE_OPTIONS: `--require ${join(dir, 'hook.cjs')}` },
    });
    expect(got.exitCode, got.stderr).toBe(0);
    return readFileSync(list, 'utf8').split('\n');
  }
});
