import { resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = resolve(ROOT, 'dist');

/** A node process that does what the launcher does (its own listeners, then the runtime), then imports conf and signals itself. */
async function launcherLike(opts: { applyRuntime: boolean; env?: Record<string, string> }) {
  const script = `
    import { applyRuntime } from '${DIST}/runtime/index.js';
    import { loadConf } from '${DIST}/config/load-conf.js';
    let handled = 0;
    for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => handled++);
    if (${opts.applyRuntime}) applyRuntime(process.env);
    await loadConf();
    await new Promise((r) => setTimeout(r, 10));
    const listeners = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
    process.kill(process.pid, 'SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    console.log(JSON.stringify({ listeners, handled }));
  `;
  return execa('node', ['--input-type=module', '-e', script], {
    cwd: ROOT,
    reject: false,
    timeout: 15_000,
    env: opts.env,
  });
}

describe('the runtime (src/runtime): process-wide side effects of the executable', () => {
  it("conf's signal listeners (when-exit, re-raising) are removed: one SIGINT is handled once", async () => {
    const res = await launcherLike({ applyRuntime: true });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ listeners: { SIGINT: 1, SIGTERM: 1 }, handled: 1 });
  });

  it('the same with CNV_RUNTIME_TUNING=off: owning the signals is not tuning', async () => {
    const res = await launcherLike({ applyRuntime: true, env: { CNV_RUNTIME_TUNING: 'off' } });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ listeners: { SIGINT: 1, SIGTERM: 1 }, handled: 1 });
  });

  it('without it, conf adds listeners that re-raise the signal: the one SIGINT is seen twice (why the runtime removes them)', async () => {
    const res = await launcherLike({ applyRuntime: false });
    expect(res.exitCode, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.listeners.SIGINT).toBeGreaterThan(1);
    expect(out.handled).toBe(2);
  });

  it('run() in-process applies nothing to its process', async () => {
    const before = {
      newListener: process.listenerCount('newListener'),
      SIGINT: process.listenerCount('SIGINT'),
      SIGTERM: process.listenerCount('SIGTERM'),
    };
    const res = await cnvInProcess(['--version']);
    expect(res.exitCode).toBe(0);
    expect({
      newListener: process.listenerCount('newListener'),
      SIGINT: process.listenerCount('SIGINT'),
      SIGTERM: process.listenerCount('SIGTERM'),
    }).toEqual(before);
  });
});
