import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { toGlobals } from '../../src/cli/global-options.js';
import { createContext } from '../../src/cli/create-context.js';
import { BodyCapture, debugLogger } from '../../src/http/debug-logger.js';
import { makeRedactor } from '../../src/redact/redact.js';

function capture() {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c) => (text += c));
  return { stderr, text: () => text };
}

const odd = 'ODD-shaped-key-SECRET-42';
const at = () => new Date('2026-01-02T03:04:05.000Z');

describe('debug logger', () => {
  it('a capture that stopped inside a key shows no part of it (the end of a cut capture is left out)', async () => {
    const body = `${odd} `.repeat(2000); // 50 KB: the capture stops somewhere inside a key
    const cap = new BodyCapture();
    const chunks: unknown[] = [];
    const source = Object.assign(Readable.from([Buffer.from(body.slice(0, 5000)), Buffer.from(body.slice(5000))]), {});
    for await (const chunk of cap.wrap(source)) chunks.push(chunk);
    expect(Buffer.concat(chunks as Buffer[]).toString()).toBe(body); // the reader gets every byte
    const snap = cap.snapshot();
    expect(snap).toMatchObject({ bytes: Buffer.byteLength(body), whole: false });
    expect(snap.text.endsWith(odd)).toBe(false); // the capture's end cut a key...
    const out = capture();
    debugLogger(out.stderr, makeRedactor([odd]), at).response({
      method: 'GET',
      path: '/v2/x',
      attempt: 2,
      status: 400,
      ms: 12.4,
      headers: {},
      body: snap,
    });
    const text = out.text();
    expect(text).toMatch(
      /^< 400 GET \/v2\/x \(attempt 2, 12 ms\)\n<\n< [* ]+\n< \[body cut: 50000 bytes in all, at most the first 4 KiB shown\]\n$/,
    );
    for (const piece of ['ODD', 'SECRET', '-42', 'shaped']) expect(text).not.toContain(piece); // ...and none of it shows
  });

  it('masks credential headers, escapes control characters, keeps a whole short body as it is', () => {
    const out = capture();
    const log = debugLogger(out.stderr, makeRedactor([odd]), at);
    log.request({
      method: 'POST',
      path: '/v2/events',
      attempt: 1,
      url: 'http://api.example:8080/v2/events',
      headers: { 'x-api-key': '****', accept: 'application/json' },
      body: '{"a":"\u001b[2J"}',
    });
    log.response({
      method: 'POST',
      path: '/v2/events',
      attempt: 1,
      status: 200,
      ms: 3,
      headers: { 'set-cookie': ['a=1', 'b=2'], authorization: 'Bearer x', 'x-note': `hello\r${odd}` },
      body: { text: '{"data":{}}', bytes: 11, whole: true },
    });
    expect(out.text()).toBe(
      [
        '* 2026-01-02T03:04:05.000Z POST http://api.example:8080/v2/events (attempt 1)',
        '> POST /v2/events',
        '> host: api.example:8080',
        '> x-api-key: ****',
        '> accept: application/json',
        '>',
        '> {"a":"\\x1b[2J"}',
        '< 200 POST /v2/events (attempt 1, 3 ms)',
        '< set-cookie: ****',
        '< set-cookie: ****',
        '< authorization: ****',
        '< x-note: hello\\r****',
        '<',
        '< {"data":{}}',
        '',
      ].join('\n'),
    );
  });

  it('--debug turns the progress spinner off (its redraws would garble the log)', () => {
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdinIsTTY: false,
      stdoutIsTTY: true,
      stderrIsTTY: true,
    };
    const ctx = createContext({ io, env: {} });
    expect(ctx.showProgress()).toBe(true);
    ctx.setGlobals({ ...ctx.globals, debug: true });
    expect(ctx.showProgress()).toBe(false);
  });

  it("--debug implies --verbose (a bug's stack trace, the emulator's log); CNV_DEBUG reads as gh reads GH_DEBUG", () => {
    const pick = (raw: Record<string, unknown>, env: Record<string, string> = {}) => {
      const g = toGlobals(raw, env);
      return { verbose: g.verbose, debug: g.debug };
    };
    expect(pick({ debug: true })).toEqual({ verbose: true, debug: true });
    expect(pick({}, { CNV_DEBUG: 'api' })).toEqual({ verbose: true, debug: true });
    expect(pick({}, { CNV_DEBUG: ' API ' })).toEqual({ verbose: true, debug: true });
    for (const on of ['1', 'true', 'yes']) expect(pick({}, { CNV_DEBUG: on })).toEqual({ verbose: true, debug: false });
    for (const off of ['', '0', 'false', 'no', 'off'])
      expect(pick({}, { CNV_DEBUG: off })).toEqual({ verbose: false, debug: false });
    expect(pick({ verbose: true })).toEqual({ verbose: true, debug: false });
  });
});
