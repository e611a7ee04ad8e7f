import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

// A reader that goes away (`| head`) is an EPIPE in a real process: the binary through bash.
let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let dir: string;
beforeAll(async () => {
  fx = await emulatorFixture();
  dir = mkdtempSync(join(tmpdir(), 'cnv-pipes-'));
});
afterAll(() => fx.close());

describe('pipes closed early', () => {
  const sh = (script: string) =>
    execa('bash', ['-c', script], {
      reject: false,
      env: { ...fx.env, PATH: process.env.PATH, CNV: BIN },
      extendEnv: false,
    });

  it('| head exits 141 and prints no error', async () => {
    const res = await sh(
      'node "$CNV" export contacts --no-state -o csv 2>"$ERR" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}"'.replace(
        '$ERR',
        join(dir, 'head.err'),
      ),
    );
    expect(res.stdout.trim()).toBe('141');
    expect(readFileSync(join(dir, 'head.err'), 'utf8')).toBe('');
  });

  it('2>&1 | head does not exit 1', async () => {
    const res = await sh(
      'node "$CNV" export contacts --no-state -o csv 2>&1 | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}"',
    );
    expect(res.stdout.trim()).toBe('141');
  });
});
