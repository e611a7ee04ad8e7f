import type { Writable } from 'node:stream';
import { escapeControl } from '../lib/terminal-text.js';

/** Request log on stderr; every line passes through the redactor and is escaped for the terminal. */
export interface RequestLogger {
  request(info: {
    method: string;
    path: string;
    attempt: number;
    url?: string;
    headers?: Record<string, string>;
    body?: string;
  }): void;
  response(info: {
    method: string;
    path: string;
    attempt: number;
    status: number | string;
    ms: number;
    headers?: Record<string, string | string[] | undefined>;
    /** The opening of the body as read (see BodyCapture) and its size in bytes. */
    body?: { text: string; bytes: number; whole: boolean };
  }): void;
  retry(info: { method: string; path: string; attempt: number; delayMs: number; reason: string }): void;
  /** Whether the client is to capture response bodies for it (the debug log: a cost only then). */
  readonly wantsBodies?: boolean;
}

export const silentLogger: RequestLogger = { request() {}, response() {}, retry() {} };

/** `--verbose`: one line per attempt sent, answered and retried. */
export function stderrLogger(stderr: Writable, redact: (s: string) => string): RequestLogger {
  const write = (line: string) => stderr.write(escapeControl(redact(line)) + '\n');
  return {
    request: ({ method, path, attempt }) => write(`> ${method} ${path} attempt=${attempt}`),
    response: ({ method, path, attempt, status, ms }) =>
      write(`< ${status} ${method} ${path} attempt=${attempt} ${Math.round(ms)}ms`),
    retry: ({ method, path, attempt, delayMs, reason }) =>
      write(`~ retry ${method} ${path} after attempt=${attempt} (${reason}) in ${Math.round(delayMs)}ms`),
  };
}
