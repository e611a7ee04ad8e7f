// Child processes and ports for the interop run: every command's output is kept for the error
// message, and a failure names the command and ends with its last lines of stderr.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** Thrown for a set-up step that cannot go on: the run stops with this message (exit 1). */
export class SetupError extends Error {}

/** The last `n` lines of `text`, indented, for an error message. */
export const tail = (text, n = 15) =>
  text
    .trimEnd()
    .split('\n')
    .slice(-n)
    .map((l) => `    ${l}`)
    .join('\n');

/** The children still running: each leads its own process group (detached), so a kill reaches its own children too. */
const live = new Set();

/** SIGKILL to every child still running and its process group (the run's clean-up on failure or Ctrl-C). */
export function killChildren() {
  for (const child of live) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `cmd args` to completion. Resolves { code, stdout, stderr }; rejects (SetupError) when it
 * exits non-zero unless `allowFail`. `input` is written to stdin; `stdout: 'inherit'|'ignore'`.
 */
export function run(cmd, args, { env = process.env, cwd, input, allowFail = false, stdout = 'pipe', onSpawn } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env,
      cwd,
      stdio: [input === undefined ? 'ignore' : 'pipe', stdout, 'pipe'],
      detached: true,
    });
    live.add(child);
    onSpawn?.(child);
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', (e) => reject(new SetupError(`cannot run ${cmd}: ${e.message}`)));
    child.on('close', (code, signal) => {
      live.delete(child);
      const result = { code: code ?? 128, signal, stdout: out, stderr: err };
      if (code === 0 || allowFail) return resolve(result);
      reject(new SetupError(`${[cmd, ...args].join(' ')} exited ${code ?? signal}:\n${tail(err || out)}`));
    });
  });
}

/** A TCP port free on 127.0.0.1 just now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Progress on stderr (stdout stays for the closing line). */
export const say = (msg) => process.stderr.write(`interop: ${msg}\n`);
