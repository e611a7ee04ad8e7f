import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/create-context.js';

// ctx.prepareHttp() (a file batch calls it before reading its file) loads the HTTP stack early,
// but credentials are still resolved, and their errors and warnings shown, at the first request.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(env: NodeJS.ProcessEnv, dispatcher?: MockAgent) {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-prepare-http-'));
  dirs.push(dir);
  let err = '';
  const stderr = new PassThrough();
  stderr.on('data', (c) => (err += c));
  const io = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const ctx = createContext({
    io,
    env: { CNV_CONFIG_DIR: join(dir, 'config'), CNV_RATE_SHARE: 'off', ...env },
    dispatcher,
  });
  return { ctx, stderr: () => err };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('ctx.prepareHttp', () => {
  it("never fails and says nothing: a missing key is still the first request's error", async () => {
    const { ctx, stderr } = setup({});
    ctx.prepareHttp();
    await settle();
    expect(stderr()).toBe('');
    await expect(ctx.http()).rejects.toMatchObject({ code: 'no_api_key' });
    await ctx.dispose();
  });

  it('leaves the credentials alone: a warning about the key comes with http(), not before', async () => {
    const { ctx, stderr } = setup(
      { CNV_API_KEY: 'oddly-shaped-key', CNV_BASE_URL: 'https://api.test' },
      new MockAgent(),
    );
    ctx.prepareHttp();
    await settle();
    expect(stderr()).toBe('');
    await ctx.http();
    expect(stderr()).toContain('warning: the API key from CNV_API_KEY does not have the form');
    await ctx.dispose();
  });

  it('gives http() the stack it loaded: one client, requests go through the dispatcher', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://api.test')
      .intercept({ path: '/v2/ping', method: 'GET' })
      .reply(200, { data: { ok: true } });
    const { ctx } = setup({ CNV_API_KEY: 'sk_live_k1_secretsecret', CNV_BASE_URL: 'https://api.test' }, agent);
    ctx.prepareHttp();
    ctx.prepareHttp();
    const http = await ctx.http();
    expect(await ctx.http()).toBe(http);
    const res = await http.requestRaw({ method: 'GET', path: '/v2/ping', idempotency: 'safe' });
    expect(res.json).toEqual({ data: { ok: true } });
    await ctx.dispose();
    await agent.close();
  });
});

describe("the Context's globals and its clients", () => {
  it('the globals are frozen: a command cannot change them for the layers below', () => {
    const { ctx } = setup({});
    expect(Object.isFrozen(ctx.globals)).toBe(true);
    expect(() => {
      (ctx.globals as { dryRun: boolean }).dryRun = true;
    }).toThrow(TypeError);
    expect(ctx.globals.dryRun).toBe(false);
  });

  it('a command that needs another client asks for it: one client per choice, made once, the globals unchanged', async () => {
    const { ctx } = setup(
      { CNV_API_KEY: 'sk_live_prepare_0123456789', CNV_BASE_URL: 'https://api.test' },
      new MockAgent(),
    );
    ctx.setGlobals({ ...ctx.globals, dryRun: true, maxRetries: 4 });
    const usual = await ctx.http();
    const live = await ctx.http({ dryRun: false });
    const patient = await ctx.http({ maxRetries: 1 });
    expect(new Set([usual, live, patient]).size).toBe(3);
    expect(await ctx.http()).toBe(usual);
    expect(await ctx.http({ dryRun: false })).toBe(live);
    expect(ctx.globals).toMatchObject({ dryRun: true, maxRetries: 4 });
    await ctx.dispose();
  });
});
