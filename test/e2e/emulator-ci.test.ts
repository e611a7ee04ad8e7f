import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, cnv, tempConfigDir } from '../helpers/cli.js';
import { parseYamlSubset } from '../helpers/mini-yaml.js';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** A directory holding a `cnv` that runs the built binary, as `npm link` would put on PATH. */
function shimDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-shim-'));
  writeFileSync(join(dir, 'cnv'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(dir, 'cnv'), 0o755);
  return dir;
}

/** The environment of a fresh CI shell: no CNV_* variables, `cnv` on PATH, a private config dir. */
function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CNV_') && k !== 'CI') env[k] = v;
  return { ...env, PATH: `${shimDir()}:${env.PATH}`, CNV_CONFIG_DIR: tempConfigDir(), ...extra };
}

/** The fenced blocks of one language in the README section under `heading`. */
function readmeBlocks(heading: string, lang: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `README.md has a section "${heading}"`).toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** Polls (bounded) until the file exists; fails at once if the process has ended. */
async function waitForFile(path: string, child?: ResultPromise): Promise<void> {
  let ended = false;
  child?.finally(() => (ended = true)).catch(() => {});
  for (let i = 0; i < 200; i++) {
    if (existsSync(path)) return;
    if (ended) throw new Error(`process ended before writing ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} did not appear`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 200 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 50));
  expect(isRunning(pid), `process ${pid} still running`).toBe(false);
}

describe('cnv emulator --ready-file', () => {
  it('writes sourceable lines once listening, logs requests with --verbose, and removes the file on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-ready-'));
    const file = join(dir, 'emulator.env');
    const child = execa('node', [BIN, 'emulator', '--port', '0', '--ready-file', file, '--verbose'], { reject: false });
    try {
      await waitForFile(file, child);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(
        /^CNV_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nCNV_API_KEY=sk_live_demo_\w+\nCNV_EMULATOR_KEY_LIMITED=sk_live_limited_\w+\nCNV_EMULATOR_KEY_BASIC=sk_live_basic_\w+\n$/,
      );
      // What a script does with it: source it, then run cnv.
      const run = await execa('sh', ['-c', `set -a; . "${file}"; set +a; cnv contacts get --email ada@example.com`], {
        env: shellEnv(),
        extendEnv: false,
        reject: false,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).email).toBe('ada@example.com');
      const url = /^CNV_BASE_URL=(.*)$/m.exec(text)![1];
      expect(await (await fetch(`${url}/_emulator/health`)).json()).toEqual({ ok: true });
    } finally {
      child.kill('SIGTERM');
    }
    const done = await child;
    expect(done.exitCode).toBe(0);
    expect(existsSync(file)).toBe(false);
    const log = String(done.stderr)
      .split('\n')
      .filter((l) => l.startsWith('emulator: '));
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/^emulator: GET \/v2\/contacts\?email=ada%40example\.com 200 \d+\.\dms$/);
    expect(log[1]).toMatch(/^emulator: GET \/_emulator\/health 200 \d+\.\dms$/);
  });

  it('a ready file in a directory that does not exist is exit 2 naming the flag and path, and the emulator does not stay up', async () => {
    const file = join(tmpdir(), 'cnv-no-such-dir-' + process.pid, 'emulator.env');
    const res = await cnv(['emulator', '--port', '0', '--ready-file', file], { timeoutMs: 10_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`error: usage: --ready-file ${file}: its directory does not exist (ENOENT)\n`);
  });

  it('replaces only a regular file: a symlink, a directory or a device is exit 2, before it listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-ready-special-'));
    const link = join(dir, 'link.env');
    symlinkSync(join(dir, 'target'), link);
    for (const [path, what] of [
      [link, 'a symbolic link'],
      [dir, 'a directory'],
      ['/dev/null', 'a device or other special file'],
    ]) {
      const res = await cnv(['emulator', '--port', '0', '--ready-file', path], { timeoutMs: 10_000 });
      expect(res.exitCode, path).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(
        `error: usage: --ready-file ${path}: is ${what}\nhint: name a new file (it is written once the emulator listens)\n`,
      );
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('an empty --ready-file is a usage error', async () => {
    const res = await cnv(['emulator', '--port', '0', '--ready-file', '']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: invalid_value: --ready-file: expected a file path/);
  });
});

describe('the background example of `cnv emulator --help`', () => {
  it('runs as written and returns (the old `eval "$(cnv emulator --json | jq ...)"` never did)', async () => {
    const help = (await cnv(['emulator', '--help'])).stdout;
    const after = help.slice(help.indexOf('In the background'));
    const lines = after
      .split('\n')
      .filter((l) => l.startsWith('  $ '))
      .map((l) => l.slice(4));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/--ready-file emu\.env .*&$/);
    const cwd = mkdtempSync(join(tmpdir(), 'cnv-help-example-'));
    // Added: remember the emulator's pid, to stop it afterwards.
    const script = [lines[0], 'echo "$!" > emu.pid', lines[1], 'cnv contacts get --email ada@example.com'].join('\n');
    const res = await execa('sh', ['-c', script], {
      cwd,
      env: shellEnv(),
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    });
    const pid = Number(readFileSync(join(cwd, 'emu.pid'), 'utf8'));
    try {
      expect(res.exitCode, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).email).toBe('ada@example.com');
    } finally {
      process.kill(pid, 'SIGTERM');
    }
    await waitUntilGone(pid);
    expect(existsSync(join(cwd, 'emu.env'))).toBe(false);
  });
});

describe('README "Use the emulator in CI"', () => {
  it('the shell recipe runs verbatim: starts, waits, exports, runs cnv, stops cleanly', async () => {
    const [recipe] = readmeBlocks('Use the emulator in CI', 'sh');
    expect(recipe).toBeDefined();
    const res = await execa('sh', ['-c', recipe], {
      env: shellEnv(),
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toContain('"email": "ada@example.com"');
    expect(res.stdout).toMatch(/^emulator: GET \/v2\/contacts\?email=ada%40example\.com 200 \d+\.\dms$/m);
    // cnv's own output (before the emulator's log, which lists its demo keys by design) never shows the key.
    const cnvOutput = res.stdout.slice(0, res.stdout.indexOf('cnv emulator listening on'));
    expect(cnvOutput).toContain('sk_live_demo_****');
    expect(cnvOutput).not.toContain('4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c');
  });

  it('the GitHub Actions job parses, and its run steps pass in order as shell (install replaced by cnv on PATH)', async () => {
    const [yaml] = readmeBlocks('Use the emulator in CI', 'yaml');
    const workflow = parseYamlSubset(yaml) as {
      on: unknown;
      jobs: Record<string, { 'runs-on': string; steps: Array<Record<string, string>> }>;
    };
    expect(workflow.on).toEqual(['push', 'pull_request']);
    const jobs = Object.values(workflow.jobs);
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(job['runs-on']).toBe('ubuntu-latest');
    for (const step of job.steps) expect('uses' in step !== 'run' in step, JSON.stringify(step)).toBe(true);
    const runs = job.steps.filter((s) => 'run' in s);
    expect(runs.map((s) => s.name)).toEqual(['Install cnv', 'Start the emulator', 'Use it', 'Stop the emulator']);

    // As the runner does: `bash -e -o pipefail` per step, $GITHUB_ENV lines carried into later steps.
    const temp = mkdtempSync(join(tmpdir(), 'cnv-gha-'));
    const githubEnv = join(temp, 'github-env');
    writeFileSync(githubEnv, '');
    const carried: Record<string, string> = {};
    const base = shellEnv({ RUNNER_TEMP: temp, GITHUB_ENV: githubEnv, CI: 'true', GITHUB_ACTIONS: 'true' });
    const results: Array<{ name: string; exitCode: number | undefined; stdout: string; stderr: string }> = [];
    let failed = false;
    for (const step of runs.slice(1)) {
      if (failed && step.if !== 'always()') continue;
      const res = await execa('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run], {
        env: { ...base, ...carried },
        extendEnv: false,
        reject: false,
        timeout: 30_000,
      });
      results.push({ name: step.name, exitCode: res.exitCode, stdout: String(res.stdout), stderr: String(res.stderr) });
      failed ||= res.exitCode !== 0;
      for (const line of readFileSync(githubEnv, 'utf8').split('\n')) {
        const eq = line.indexOf('=');
        if (eq > 0) carried[line.slice(0, eq)] = line.slice(eq + 1);
      }
    }
    expect(
      results.map((r) => [r.name, r.exitCode]),
      JSON.stringify(results, null, 1),
    ).toEqual([
      ['Start the emulator', 0],
      ['Use it', 0],
      ['Stop the emulator', 0],
    ]);
    expect(carried.CNV_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(results[1].stdout).toContain('"email": "ada@example.com"');
    expect(results[2].stdout).toMatch(/^emulator: GET \/v2\/contacts\?email=ada%40example\.com 200 /m);
    await waitUntilGone(Number(carried.EMULATOR_PID));
  });
});
