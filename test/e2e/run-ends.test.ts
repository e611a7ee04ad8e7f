import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES } from '../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// A run either reaches its end (a result, or an error line and its exit code) or it is not a
// success: the launcher's exit code stays non-zero until run() returned (bin/cnv.js).
const fx = useEmulator();
const files = batchFiles('cnv-run-ends-');
const STALLED_WRITES = pathToFileURL(resolve(import.meta.dirname, '../fixtures/preload/stalled-file-writes.mjs')).href;

/** The binary with its stdout going to `stdout` (a path), and `node` options before it. */
async function cnvTo(stdout: string, args: string[], nodeOptions: string[] = []) {
  // The descriptor itself, as a shell's `>` gives it (execa would copy from a pipe).
  const fd = openSync(stdout, 'w');
  try {
    const res = await execa('node', [...nodeOptions, BIN, ...args], {
      reject: false,
      env: cleanEnv(fx.env),
      extendEnv: false,
      stdin: 'ignore',
      stdout: fd,
      timeout: 60_000,
    });
    return { exitCode: res.exitCode ?? -1, stderr: String(res.stderr) };
  } finally {
    closeSync(fd);
  }
}

describe('stdout on a full disk (> /dev/full) is exit 8 naming stdout', () => {
  const cases: Array<[string, string[]]> = [
    ['export contacts --no-state', ['export', 'contacts', '--no-state']],
    ['contacts get', ['contacts', 'get', '--email', 'ada@example.com']],
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['fields --help', ['fields', '--help']],
    ['fields list', ['fields', 'list']],
  ];
  // Issue 38: the result document of a file run (the rows are sent first; the summary was lost, exit 0).
  const upsertFile = () => files.write('full.csv', 'email,firstName\nfull.disk@example.com,Ada\n');
  const syncFile = () => files.write('full-sync.csv', 'email,firstName\nfull.sync@example.com,Ada\n');
  cases.push(
    ['contacts upsert --file --json', ['contacts', 'upsert', '--file', upsertFile(), '--json']],
    ['contacts upsert --file -q status', ['contacts', 'upsert', '--file', upsertFile(), '-q', 'status']],
    ['contacts upsert --file --summary-json -', ['contacts', 'upsert', '--file', upsertFile(), '--summary-json', '-']],
    ['contacts sync --json', ['contacts', 'sync', '--file', syncFile(), '--json']],
    ['contacts sync -q status', ['contacts', 'sync', '--file', syncFile(), '-q', 'status']],
    ['contacts sync --summary-json -', ['contacts', 'sync', '--file', syncFile(), '--summary-json', '-']],
    ['contacts sync --json --exit-code', ['contacts', 'sync', '--file', syncFile(), '--json', '--exit-code']],
    [
      'audience add --batch --json',
      [
        'audience',
        'add',
        FIXTURE_AUDIENCES.followUp.id,
        '--batch',
        files.write('aud.csv', 'email\nada@example.com\n'),
        '--json',
      ],
    ],
    ['export state list --json', ['export', 'state', 'list', '--json']],
    [
      'export contacts --out FILE --json',
      ['export', 'contacts', '--out', files.write('full-export.ndjson', ''), '--no-state', '--json'],
    ],
  );
  it.each(cases)('%s', async (_name, args) => {
    const res = await cnvTo('/dev/full', args);
    expect(res.stderr).toMatch(
      /^error: disk_full: cannot write the output to stdout: the disk is full \(ENOSPC\)\nhint: /m,
    );
    expect(res.stderr).not.toContain('internal');
    expect(res.exitCode).toBe(8);
  });
});

describe('a batch whose report cannot be written', () => {
  it('--report /dev/full: the summary and exit 8 disk_full, on every Node.js version (Node 24 ended with exit 0 and no summary)', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `u${i}@example.com`);
    const input = files.write('a.csv', `email\n${rows.join('\n')}\n`);
    const res = await cnvTo('/dev/null', [
      'audience',
      'add',
      FIXTURE_AUDIENCES.followUp.id,
      '--batch',
      input,
      '--chunk-size',
      '10',
      '--report',
      '/dev/full',
    ]);
    expect(res.stderr).toMatch(/^stopped early: \d+ rows: .*; report: \/dev\/full$/m);
    expect(res.stderr).toMatch(/^error: disk_full: cannot write the report \/dev\/full: the disk is full \(ENOSPC\)$/m);
    expect(res.exitCode).toBe(8);
  });
});

describe('a run that ends without reaching its end never exits 0', () => {
  it('a write that never completes: the process runs out of work with the run unfinished, exit 1 saying so', async () => {
    const input = files.write('few.csv', 'email\nada@example.com\ngrace@example.com\n');
    const res = await cnvTo(
      '/dev/null',
      ['audience', 'add', FIXTURE_AUDIENCES.followUp.id, '--batch', input, '--report', '/dev/null'],
      ['--import', STALLED_WRITES],
    );
    expect(res.stderr).toContain(
      'error: internal: the run stopped before its end, with nothing left to wait for (no result, no summary)',
    );
    expect(res.exitCode).toBe(1);
  });
});
