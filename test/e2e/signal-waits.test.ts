import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES as AU } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// A wait on a FIFO (for a writer, a reader, or data) and the reading of a resume report end at
// the first SIGINT or SIGTERM. Before, a FIFO was opened on a thread of libuv's pool: the open
// blocked it, nothing could end that wait, and the process could not even exit (every signal
// ignored); a resume report was read to its end whatever came (51 s after SIGINT for 200 MB).

const { dir, write } = batchFiles('cnv-waits-');
const fx = useEmulator();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let fifos = 0;
const fifo = () => {
  const path = join(dir, `fifo-${fifos++}`);
  execFileSync('mkfifo', [path]);
  return path;
};

/** Starts cnv, waits until it is (probably) waiting, sends the signal; the exit code and how long the exit took. */
async function stopped(args: string[], signal: 'SIGINT' | 'SIGTERM', settleMs = 800) {
  const child = execa('node', [BIN, ...args], { env: fx.env, reject: false, stdin: 'ignore', timeout: 20_000 });
  await sleep(settleMs);
  const sent = Date.now();
  child.kill(signal);
  const res = await child;
  return { exitCode: res.exitCode, stderr: String(res.stderr), afterMs: Date.now() - sent, timedOut: res.timedOut };
}

describe('waits that a signal ends (binary)', () => {
  const people = () => write('people.csv', 'email\na@example.com\n');
  const add = (...more: string[]) => ['audience', 'add', AU.followUp.id, ...more];

  it.each([
    ['--batch on a FIFO nobody writes to', () => add('--batch', fifo(), '--input-format', 'csv'), 'SIGINT', 130],
    [
      '--resume-from-report on a FIFO nobody writes to',
      () => add('--batch', people(), '--resume-from-report', fifo()),
      'SIGTERM',
      143,
    ],
    ['--report on a FIFO nobody reads', () => add('--batch', people(), '--report', fifo()), 'SIGINT', 130],
    [
      'cnv api --input on a FIFO nobody writes to',
      () => ['api', 'POST', '/v2/contacts', '--input', fifo()],
      'SIGTERM',
      143,
    ],
  ] as const)('%s: exit 130/143 soon after the signal', async (_name, args, signal, code) => {
    const res = await stopped(args(), signal);
    expect(res.timedOut).toBe(false);
    expect(res.exitCode, res.stderr).toBe(code);
    expect(res.stderr).toMatch(/error: interrupted/);
    expect(res.afterMs).toBeLessThan(5_000);
  });

  it('a resume report whose writer stalls after its first lines: the reading ends at SIGINT', async () => {
    const path = fifo();
    const input = write('x.csv', 'email\na@example.com\n');
    const job = JSON.stringify({ command: 'audience add', target: AU.followUp.id, input, account: null });
    const start = `line,identifier,status,cnvContactId,error,message,row,hash,job\n2,a@example.com,added,x,,,1,0123456789abcdef,"${job.replaceAll('"', '""')}"\n`;
    const run = stopped(add('--batch', input, '--resume-from-report', path), 'SIGINT', 1_000);
    // The writer opens the FIFO once cnv reads it (never blocking this process), writes the start and stays.
    let fd: number | undefined;
    for (let i = 0; i < 100 && fd === undefined; i++) {
      try {
        fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch {
        await sleep(50);
      }
    }
    writeSync(fd!, start);
    const res = await run;
    closeSync(fd!);
    expect(res.exitCode, res.stderr).toBe(130);
    expect(res.afterMs).toBeLessThan(5_000);
  });

  it('--resume-from-report /dev/zero: refused at once (exit 2), not read for ever', async () => {
    const res = await execa('node', [BIN, ...add('--batch', people(), '--resume-from-report', '/dev/zero')], {
      env: fx.env,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--resume-from-report \/dev\/zero: not a cnv report/);
  });
});

describe('stdin from a pipe whose writer stays open: the first signal ends the run (binary)', () => {
  // 256 KiB: more than a pipe holds (64 KiB), so the write drains only once cnv is reading
  // stdin, its signal listeners in place; the writer then stays, as `(printf ...; sleep 15) |` does.
  const big = 'x'.repeat(256 * 1024);
  it.each([
    // A quoted CSV value still open: the rows so far are read, and more is awaited.
    [
      'contacts upsert --file -',
      ['contacts', 'upsert', '--file', '-'],
      `email,firstName\na@example.com,"${big}`,
      'SIGTERM',
      143,
    ],
    ['cnv api POST /v2/contacts -F email=@-', ['api', 'POST', '/v2/contacts', '-F', 'email=@-'], big, 'SIGINT', 130],
    ['config set-key (the key piped)', ['config', 'set-key'], big, 'SIGTERM', 143],
  ] as const)(
    '%s: exit 130/143 at the signal, the writer still there (before: only once it closed the pipe)',
    async (_name, args, written, signal, code) => {
      const child = execa('node', [BIN, ...args], { env: fx.env, reject: false, stdin: 'pipe', timeout: 20_000 });
      await new Promise<void>((resolve, reject) =>
        child.stdin!.write(written, (err) => (err ? reject(err) : resolve())),
      );
      child.kill(signal);
      const res = await child;
      expect(res.timedOut, 'still reading stdin after the signal').toBe(false);
      expect(String(res.stderr)).toMatch(/error: interrupted: interrupted by SIG(INT|TERM)/);
      expect(res.exitCode).toBe(code);
    },
  );
});
