// Benchmark helpers: alternate baseline and subject, take medians, report ratios.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/**
 * Runs a command to completion; resolves to wall time (ms), peak RSS (KiB) and output.
 * `stdout`: 'ignore' (/dev/null), 'pipe' (collected), or a file path the output is written into.
 */
export function timeCommand(cmd, args, { env = process.env, input, stdout = 'ignore' } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // 'ignore' is /dev/null opened write-only, as `> /dev/null` opens it: Node's own 'ignore' opens
    // it read-write, which is how a stdout the shell closed (>&-) looks to cnv (exit 141).
    const path = stdout === 'ignore' ? '/dev/null' : stdout;
    const fd = path === 'pipe' ? undefined : openSync(path, 'w');
    // /usr/bin/time -f reports the child's peak RSS without instrumenting it.
    const child = spawn('/usr/bin/time', ['-f', '__RSS_KB=%M', cmd, ...args], {
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', fd ?? 'pipe', 'pipe'],
    });
    if (fd !== undefined) closeSync(fd);
    let stderr = '';
    let out = '';
    child.stderr.on('data', (c) => (stderr += c));
    if (stdout === 'pipe') child.stdout.on('data', (c) => (out += c));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const rss = Number(/__RSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
      resolve({ ms, rssKiB: rss, stdout: out, stderr });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Alternates baseline and subject `rounds` times (after `warmup` unrecorded rounds) so that
 * machine noise hits both alike; returns medians and their ratio.
 */
export async function compare({ name, baseline, subject, rounds = 5, warmup = 1, metric = 'ms' }) {
  const b = [];
  const s = [];
  const rb = [];
  const rs = [];
  for (let i = 0; i < warmup + rounds; i++) {
    const x = await baseline();
    const y = await subject();
    if (i >= warmup) {
      rb.push(x);
      rs.push(y);
      b.push(x[metric]);
      s.push(y[metric]);
    }
  }
  const result = { name, metric, baseline: median(b), subject: median(s), rounds };
  result.ratio = result.subject / result.baseline;
  // Every recorded run, for figures derived from the same runs (peak memory of the timed runs).
  Object.defineProperty(result, 'runs', { value: { baseline: rb, subject: rs }, enumerable: false });
  return result;
}

export function fmt(n, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}
