import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { execa } from 'execa';
import type { Dispatcher } from 'undici';
import type { Clock } from '../../src/clock.js';
import { run, type RunDeps } from '../../src/main.js';
import { PROXY_VARIABLES } from './proxy-env.js';

export const BIN = resolve(import.meta.dirname, '../../bin/cnv.js');

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A fresh, empty config directory (profiles and export state). */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'cnv-test-'));
}

/** The test process's env without anything that changes cnv's behaviour; `extra` is added last (proxy tests set their proxy there). */
export function cleanEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CNV_') || key === 'NO_COLOR' || key === 'CI') delete env[key];
  for (const key of PROXY_VARIABLES) delete env[key];
  return { ...env, ...extra };
}

/** Runs the built binary (bin/cnv.js) as a user would. */
export async function cnv(
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const result = await execa('node', [BIN, ...args], {
    reject: false,
    env: cleanEnv(opts.env ?? {}),
    extendEnv: false,
    input: opts.input,
    stdin: opts.input === undefined ? 'ignore' : undefined,
    timeout: opts.timeoutMs ?? 60_000,
    stripFinalNewline: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Runs the CLI in this process with fake streams (for command tests). */
export async function cnvInProcess(
  args: string[],
  opts: {
    env?: Record<string, string | undefined>;
    input?: string;
    stdoutIsTTY?: boolean;
    stderrIsTTY?: boolean;
    stdinIsTTY?: boolean;
    /** The fake terminal's width (stdout.columns), as a TTY reports it. */
    columns?: number;
    dispatcher?: Dispatcher;
    signal?: AbortSignal;
    /** Replaces the system clock (test/helpers/fake-clock.ts): Retry-After and backoff waits take no time. */
    clock?: Clock;
    /** What the launcher lets the run tune (src/runtime: applyRuntime); none by default, as in-process. */
    tuning?: RunDeps['tuning'];
  } = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (opts.columns !== undefined) Object.assign(stdout, { columns: opts.columns });
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const exitCode = await run(args, {
    io: {
      stdin: Readable.from(opts.input === undefined ? [] : [opts.input]),
      stdout,
      stderr,
      stdinIsTTY: opts.stdinIsTTY ?? false,
      stdoutIsTTY: opts.stdoutIsTTY ?? false,
      stderrIsTTY: opts.stderrIsTTY ?? false,
    },
    env: cleanEnv(opts.env ?? {}) as NodeJS.ProcessEnv,
    dispatcher: opts.dispatcher,
    signal: opts.signal,
    clock: opts.clock,
    random: () => 0,
    tuning: opts.tuning,
  });
  return { exitCode, stdout: out, stderr: err };
}
