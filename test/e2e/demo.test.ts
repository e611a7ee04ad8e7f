import { resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('npm run demo (scripts/demo.mjs, on the built dist)', () => {
  it('shows each command as typed, the key switch included, and each step ends with the exit code its title names', async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('CNV_') && k !== 'CI') env[k] = v;
    const res = await execa('node', ['scripts/demo.mjs'], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    const steps = String(res.stdout)
      .split('\n# ')
      .slice(1)
      .map((block) => {
        const lines = block.split('\n');
        return { title: lines[0], command: lines[1], exit: /\(exit (\d+)\)/.exec(block)?.[1] };
      });
    expect(steps.length).toBeGreaterThan(10);
    for (const step of steps) {
      expect(step.command, step.title).toMatch(/^\$ (\w+=\S+ )*cnv /);
      const promised = /\(exit (\d+)/.exec(step.title)?.[1] ?? '0';
      expect(step.exit, step.title).toBe(promised);
    }
    const keySwitch = steps.find((s) => s.title.includes('lacks the endpoint'))!;
    expect(keySwitch.command).toMatch(
      /^\$ CNV_API_KEY=sk_live_basic_[0-9a-f]+ cnv contacts get --email demo\.user@example\.com$/,
    );
  });
});
