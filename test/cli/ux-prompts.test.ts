import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

const terminal = { stdinIsTTY: true, stderrIsTTY: true } as const;

describe('questions and notices on a terminal (in-process)', () => {
  it('export state reset asks on a terminal: no keeps the state (exit 2), yes or --yes deletes it', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-ux-')), 'c.csv');
    expect(
      (await cnvInProcess(['export', 'contacts', '--state-key', 'crm', '--max-rows', '2', '--out', out], { env }))
        .exitCode,
    ).toBe(0);

    const no = await cnvInProcess(['export', 'state', 'reset', 'crm'], { env, ...terminal, input: 'n\n' });
    expect(no.stderr).toMatch(
      /^delete export state "crm" \(2 rows exported, last saved .*\)\? The next run starts over\. \[y\/N\] /,
    );
    expect(no.exitCode).toBe(2);
    expect(no.stderr).toMatch(/error: not_confirmed: /);
    expect((await cnvInProcess(['export', 'state', 'show', 'crm'], { env })).exitCode).toBe(0);

    const yes = await cnvInProcess(['export', 'state', 'reset', 'crm', '--json'], { env, ...terminal, input: 'yes\n' });
    expect(yes.exitCode).toBe(0);
    expect(JSON.parse(yes.stdout)).toEqual({ key: 'crm', removed: true });

    await cnvInProcess(['export', 'contacts', '--state-key', 'crm', '--max-rows', '1', '--out', out, '--full'], {
      env,
    });
    const skip = await cnvInProcess(['export', 'state', 'reset', 'crm', '--yes'], { env, ...terminal });
    expect(skip.exitCode).toBe(0);
    expect(skip.stderr).not.toContain('[y/N]');
  });

  it('config remove asks on a terminal: no keeps the profile (exit 2), yes deletes it', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnvInProcess(['--profile', 'old', 'config', 'set-url', fx.emulator.url], { env })).exitCode).toBe(0);
    const no = await cnvInProcess(['config', 'remove', 'old'], { env, ...terminal, input: 'n\n' });
    expect(no.stderr).toMatch(/^delete profile "old" and the API key stored with it\? \[y\/N\] /);
    expect(no.exitCode).toBe(2);
    expect((await cnvInProcess(['config', 'list', '--json'], { env })).stdout).toContain('"old"');
    const yes = await cnvInProcess(['config', 'remove', 'old'], { env, ...terminal, input: 'y\n' });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await cnvInProcess(['config', 'list', '--json'], { env })).stdout).not.toContain('"old"');
  });

  it('--batch - on a terminal says it reads stdin until Ctrl-D; piped, it says nothing', async () => {
    const rows = 'email\nada@example.com\n';
    const tty = await cnvInProcess(['contacts', 'upsert', '--file', '-'], { env: fx.env, ...terminal, input: rows });
    expect(tty.exitCode).toBe(0);
    expect(tty.stderr).toMatch(/^reading rows from stdin \(the terminal\): paste them, then press Ctrl-D/);
    const piped = await cnvInProcess(['contacts', 'upsert', '--file', '-'], { env: fx.env, input: rows });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toContain('reading rows from stdin');
  });

  it('contacts upsert with --contact-id and --email warns that the email becomes the address', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--contact-id', 'a0000000-0000-4000-8000-000000000001', '--email', 'ada@example.com'],
      { env: fx.env },
    );
    expect(res.stderr).toMatch(
      /^warning: --contact-id finds the contact; --email does not look it up but sets its address to ada@example.com$/m,
    );
  });
});

describe('--summary-json on interrupt (in-process)', () => {
  it('a batch interrupted by SIGINT writes its summary with status interrupted and exits 130', async () => {
    const { InterruptedError } = await import('../../src/errors.js');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const work = mkdtempSync(join(tmpdir(), 'cnv-ux-'));
    const input = join(work, 'in.csv');
    writeFileSync(input, 'email\nada@example.com\nbob@example.com\n');
    const controller = new AbortController();
    controller.abort(new InterruptedError('SIGINT'));
    const summary = join(work, 'summary.json');
    const res = await cnvInProcess(['contacts', 'upsert', '--file', input, '--summary-json', summary], {
      env: fx.env,
      signal: controller.signal,
    });
    expect(res.exitCode).toBe(130);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({
      status: 'interrupted',
      exitCode: 130,
      stopped: expect.any(String),
    });
    expect(res.stderr.trim().split('\n').at(-1)).toMatch(/^(error|hint): /);
  });
});
