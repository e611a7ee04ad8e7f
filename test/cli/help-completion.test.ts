import { mkdirSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTable } from '../../src/cli/completion-table.js';
import { renderReference } from '../../src/cli/reference.js';
import { BIN, cnv, cnvInProcess, tempConfigDir } from '../helpers/cli.js';

describe('help topics', () => {
  it('cnv help exit-codes and cnv help environment', async () => {
    const codes = await cnvInProcess(['help', 'exit-codes']);
    expect(codes.exitCode).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '6', '7', '130', '141'])
      expect(codes.stdout).toMatch(new RegExp(`^  ${code} `, 'm'));
    const env = await cnvInProcess(['help', 'environment']);
    for (const name of ['CNV_API_KEY', 'CNV_BASE_URL', 'CNV_CONFIG_DIR', 'HTTPS_PROXY', 'NO_PROXY', 'NO_COLOR'])
      expect(env.stdout).toContain(name);
  });

  it("cnv help <command> prints that command's help; an unknown topic is a usage error", async () => {
    const res = await cnvInProcess(['help', 'contacts', 'upsert']);
    expect(res.stdout).toMatch(/USAGE\n {2}cnv contacts upsert \[flags\]/);
    expect(res.stdout).toMatch(/--update-only/);
    const bad = await cnvInProcess(['help', 'nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/no command or help topic "nope"/);
  });

  it('docs/commands.md is up to date (run `npm run docs`)', async () => {
    const onDisk = readFileSync(resolve(import.meta.dirname, '../../docs/commands.md'), 'utf8');
    expect(onDisk).toBe(await renderReference());
  });

  it('every command has --help text with an example', async () => {
    const reference = (await renderReference()).split('\n## Help topics')[0];
    const sections = reference.split(/\n(?=#{2,4} cnv )/).filter((s) => /^#{2,4} cnv /.test(s));
    const leaves = sections.filter((s) => !/\nCOMMANDS\n/.test(s) && !/^## cnv\n/.test(s));
    expect(leaves.length).toBeGreaterThan(8);
    for (const section of leaves) expect(section, section.split('\n')[0]).toMatch(/EXAMPLES\n\s+\$ cnv /);
  });
});

describe('shell completion', () => {
  const complete = async (...words: string[]) =>
    (await cnvInProcess(['__complete', '--', ...words], { env: { CNV_CONFIG_DIR: tempConfigDir() } })).stdout
      .split('\n')
      .filter(Boolean);

  it('completes commands, flags and enumerated values', async () => {
    expect(await complete('')).toEqual(
      expect.arrayContaining(['contacts', 'events', 'config', 'doctor', 'emulator', 'completion']),
    );
    expect(await complete('contacts', '')).toEqual(['upsert', 'sync', 'get']);
    expect(await complete('contacts', 'sync', '--pl')).toEqual(['--plan', '--plan-format']);
    expect(await complete('contacts', 'upsert', '--up')).toEqual(['--update-only']);
    expect(await complete('contacts', 'upsert', '--status', '')).toEqual(['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS']);
    // markdown: the --about of the tap and the target only (other commands refuse it).
    expect(await complete('-o', '')).toEqual(['table', 'json', 'ndjson', 'csv', 'markdown']);
    expect(await complete('contacts', 'get', '--')).toEqual(
      expect.arrayContaining(['--email', '--contact-id', '--profile', '--json']),
    );
  });

  it('completes profile names from the config', async () => {
    const dir = tempConfigDir();
    await cnvInProcess(['--profile', 'prod', 'config', 'set-key'], {
      env: { CNV_CONFIG_DIR: dir },
      input: 'sk_live_a_b',
    });
    await cnvInProcess(['--profile', 'staging', 'config', 'set-key'], {
      env: { CNV_CONFIG_DIR: dir },
      input: 'sk_live_a_b',
    });
    const res = await cnv(['__complete', '--', '--profile', ''], { env: { CNV_CONFIG_DIR: dir } });
    expect(res.stdout.split('\n').filter(Boolean).sort()).toEqual(['prod', 'staging']);
  });

  it('completes state keys, help topics, shells and profiles as arguments', async () => {
    const dir = tempConfigDir();
    mkdirSync(join(dir, 'exports'));
    // A state file's shape (docs/exports.md); test/e2e/operator-ux.test.ts completes the key of a real one.
    writeFileSync(
      join(dir, 'exports', 'nightly.0123456789.json'),
      JSON.stringify({ state: { key: 'nightly-contacts' } }),
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { prod: {}, staging: {} } }));
    const inProcess = async (...words: string[]) =>
      (await cnvInProcess(['__complete', '--', ...words], { env: { CNV_CONFIG_DIR: dir } })).stdout
        .split('\n')
        .filter(Boolean);
    expect(await inProcess('export', 'state', 'show', '')).toEqual(['nightly-contacts']);
    expect(await inProcess('export', 'contacts', '--state-key', 'n')).toEqual(['nightly-contacts']);
    expect(await inProcess('help', 'e')).toEqual(['exit-codes', 'environment', 'events', 'export', 'emulator']);
    expect(await inProcess('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await inProcess('config', 'use', '')).toEqual(['prod', 'staging']);
    // The built CLI answers from its table (no command loaded): the same answers.
    for (const words of [
      ['export', 'state', 'show', ''],
      ['help', 'e'],
      ['contacts', 'upsert', '--status', ''],
      ['config', 'use', ''],
      [''],
    ]) {
      const res = await cnv(['__complete', '--', ...words], { env: { CNV_CONFIG_DIR: dir } });
      expect(res.stdout.split('\n').filter(Boolean), words.join(' ')).toEqual(await inProcess(...words));
    }
  });

  it('the completion table beside the bundle is the one the program makes', async () => {
    const onDisk = JSON.parse(readFileSync(resolve(BIN, '../../dist/bundle/completion.json'), 'utf8'));
    expect(onDisk).toEqual(await completionTable());
  });

  it('the bash script works in a real bash', async () => {
    const shimDir = mkdtempSync(join(tmpdir(), 'cnv-shim-'));
    writeFileSync(join(shimDir, 'cnv'), `#!/bin/sh\nexec node ${BIN} "$@"\n`);
    chmodSync(join(shimDir, 'cnv'), 0o755);
    const env = { ...process.env, PATH: `${shimDir}:${process.env.PATH}`, CNV_CONFIG_DIR: tempConfigDir() };
    const run = async (words: string[]) => {
      const script = `source <(cnv completion bash); COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _cnv_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return (await execa('bash', ['-c', script], { env })).stdout.trim();
    };
    expect(await run(['cnv', 'contacts', 'upsert', '--status', 'U'])).toBe('UNSUBSCRIBED');
    // Values accepted in any case complete in any case: in the case the word began in.
    expect(await run(['cnv', 'contacts', 'upsert', '--status', 'su'])).toBe('subscribed');
    expect(await run(['cnv', 'export', 'email-events', '--type', 'email_op'])).toBe('email_open');
    expect(await run(['cnv', '-o', 'nd'])).toBe('ndjson');
    expect(await run(['cnv', 'contacts', 'g'])).toBe('get');
    // As bash calls it on a TAB: COMP_LINE and COMP_POINT, and COMP_WORDS split at ':' as well.
    mkdirSync(join(env.CNV_CONFIG_DIR, 'exports'));
    writeFileSync(
      join(env.CNV_CONFIG_DIR, 'exports', 'k.0123456789.json'),
      JSON.stringify({ state: { key: 'default@127.0.0.1:4010/contacts:/data/c.csv' } }),
    );
    const typed = async (line: string) => {
      const script = `source <(cnv completion bash); COMP_LINE='${line}'; COMP_POINT=${line.length}; COMP_WORDBREAKS=$' \\t\\n"\\'><=;|&(:'; _cnv_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return (await execa('bash', ['-c', script], { env })).stdout.trim();
    };
    // bash replaces what follows the last ':' of the word: the candidate from there.
    expect(await typed('cnv export state show def')).toBe('default@127.0.0.1:4010/contacts:/data/c.csv');
    expect(await typed('cnv export state show default@127.0.0.1:4010/con')).toBe('4010/contacts:/data/c.csv');
    expect(await typed('cnv export state show default@127.0.0.1:4010/contacts:/d')).toBe('/data/c.csv');
    expect(await typed('cnv contacts g')).toBe('get');
  });

  it('values accepted in any case complete in any case, exact ones (a shell) only as written', async () => {
    const words = async (...w: string[]) =>
      (await cnvInProcess(['__complete', '--', ...w], { env: { CNV_CONFIG_DIR: tempConfigDir() } })).stdout
        .split('\n')
        .filter(Boolean);
    expect(await words('contacts', 'upsert', '--status', 'su')).toEqual(['subscribed']);
    expect(await words('contacts', 'upsert', '--status', 'SU')).toEqual(['SUBSCRIBED']);
    expect(await words('contacts', 'upsert', '--status', 'Un')).toEqual(['Unsubscribed']);
    expect(await words('contacts', 'upsert', '--status', '')).toEqual(['SUBSCRIBED', 'UNSUBSCRIBED', 'NO_STATUS']);
    expect(await words('-o', 'TA')).toEqual(['TABLE']);
    expect(await words('completion', 'fi')).toEqual(['fish']);
    expect(await words('completion', 'FI')).toEqual([]);
  });

  it('prints zsh and fish scripts; an unknown shell is a usage error', async () => {
    expect((await cnvInProcess(['completion', 'zsh'])).stdout).toMatch(/^#compdef cnv/);
    const fish = (await cnvInProcess(['completion', 'fish'])).stdout;
    // fish offers only cnv's values (-f: no file names of its own), and file names only where cnv has none.
    expect(fish).toMatch(/^complete -c cnv -f -a '\(__cnv_complete\)'$/m);
    expect(fish).toMatch(
      /if test \(count \$candidates\) -gt 0\n\s+printf '%s\\n' \$candidates\n\s+else\n\s+__fish_complete_path/,
    );
    expect((await cnvInProcess(['completion', 'tcsh'])).exitCode).toBe(2);
  });
});
