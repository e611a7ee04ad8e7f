// Benchmark helpers: alternate baseline and subject, take medians, report ratios.
import { spawn } from 'node:child_process';

/** Runs a command to completion; resolves to wall time (ms), peak RSS (KiB) and output. */
export function timeCommand(cmd, args, { env = process.env, input, stdout = 'ignore' } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // /usr/bin/time -f reports the child's peak RSS without instrumenting it.
    const child = spawn('/usr/bin/time', ['-f', '__RSS_KB=%M', cmd, ...args], {
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', stdout, 'pipe'],
    });
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
  for (let i = 0; i < warmup + rounds; i++) {
    const rb = await baseline();
    const rs = await subject();
    if (i >= warmup) {
      b.push(rb[metric]);
      s.push(rs[metric]);
    }
  }
  const result = { name, metric, baseline: median(b), subject: median(s), rounds };
  result.ratio = result.subject / result.baseline;
  return result;
}

export function fmt(n, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}
