// runPipeline as a process of its own (singer-pipeline-main.ts), leading its own process group,
// so that a test can kill -9 the runner with its tap and target at once, as a machine or a
// container that dies. Node 20 runs no TypeScript: esbuild bundles the entry once per test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { PipelineOptions, PipelineResult } from './singer-pipeline.js';

let bundled: Promise<string> | undefined;

/** The runner's bundle, built at the first call. */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), 'singer-pipeline-bin-')), 'singer-pipeline.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, 'singer-pipeline-main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      logLevel: 'silent',
    });
    return outfile;
  })();
  return bundled;
}

/** How the runner's process ended: its result when it ran to its end. */
export interface PipelineProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  result?: PipelineResult;
}

/**
 * Starts the runner with `opts` (no callbacks: they cannot cross) in environment `env` (its run
 * folder is made in its TMPDIR); `child.pid` leads the process group of the runner, tap and target.
 */
export async function startPipelineProcess(
  opts: Omit<PipelineOptions, 'onStart' | 'onState'>,
  env: Record<string, string | undefined> = process.env,
): Promise<{ child: ChildProcess; ended: Promise<PipelineProcessEnd> }> {
  const child = spawn(process.execPath, [await bundle()], { detached: true, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin!.end(JSON.stringify(opts));
  const ended = new Promise<PipelineProcessEnd>((resolve) =>
    child.on('close', (exitCode, signal) =>
      resolve({
        exitCode,
        signal,
        stdout,
        stderr,
        result: exitCode === 0 ? (JSON.parse(stdout) as PipelineResult) : undefined,
      }),
    ),
  );
  return { child, ended };
}

/** Whether a process of group `pgid` is still running (a killed runner's tap and target die with it). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
