import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/create-context.js';
import { stderrLogger } from '../../src/http/logger.js';
import { makeRedactor, redactUrl } from '../../src/redact/redact.js';
import { escapeControl } from '../../src/lib/terminal-text.js';

describe('escapeControl', () => {
  it('shows C0, DEL, C1, line separators and bidi controls as escapes; plain text is untouched', () => {
    expect(escapeControl('a\u001b[31mb\u0007c\rd\ne\tf\u0000g\u007fh\u009bi\u202ej\u2066k\u2028l')).toBe(
      'a\\x1b[31mb\\x07c\\rd\\ne\\tf\\x00g\\u007fh\\u009bi\\u202ej\\u2066k\\u2028l',
    );
    expect(escapeControl('Zoë Ångström 名前 😀 "quoted"')).toBe('Zoë Ångström 名前 😀 "quoted"');
  });

  it('keeps the characters asked for', () => {
    expect(escapeControl('line 1\nline\t2\r', '\n\t')).toBe('line 1\nline\t2\\r');
  });

  it('leaves a JSON text valid JSON, with the exact string inside', () => {
    const value = { message: 'x\u001b]0;t\u0007 \u009b2J \u202e \u2028 \u007f' };
    expect(JSON.parse(escapeControl(JSON.stringify(value)))).toEqual(value);
  });
});

describe('ctx.warn, ctx.info and the verbose log', () => {
  it('escape control characters (line breaks and tabs kept) and redact', () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => (err += c));
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    };
    const ctx = createContext({ io, env: { CNV_API_KEY: 'sk_live_k1_secretsecret' } });
    ctx.warn('server said \u001b[2J\u001b]0;pwned\u0007 with sk_live_k1_secretsecret');
    ctx.info('two\nlines\u009b');
    expect(err).toBe('warning: server said \\x1b[2J\\x1b]0;pwned\\x07 with sk_live_k1_****\ntwo\nlines\\u009b\n');

    let log = '';
    const sink = new Writable({
      write(chunk, _e, cb) {
        log += chunk;
        cb();
      },
    });
    stderrLogger(sink, (s) => s).retry({ method: 'GET', path: '/v2/x', attempt: 1, delayMs: 5, reason: 'E\u001b[1mX' });
    expect(log).toBe('~ retry GET /v2/x after attempt=1 (E\\x1b[1mX) in 5ms\n');
  });
});

describe('redactUrl and the redactor', () => {
  it('hide a user name and password in a URL, anywhere in a text', () => {
    expect(redactUrl('https://user:p%40ss@api.example.com/v2')).toBe('https://***@api.example.com/v2');
    expect(redactUrl('http://token@127.0.0.1:4010')).toBe('http://***@127.0.0.1:4010');
    expect(redactUrl('https://api.example.com/v2?email=a@b.c')).toBe('https://api.example.com/v2?email=a@b.c');
    expect(makeRedactor([])('GET failed for https://u:hunter2@h.example/x, mail a@b.c')).toBe(
      'GET failed for https://***@h.example/x, mail a@b.c',
    );
  });
});
