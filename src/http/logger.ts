import type { Writable } from 'node:stream';
import { escapeControl } from '../io/terminal-text.js';

/** Verbose request log on stderr; every line passes through the redactor and is escaped for the terminal. */
export interface RequestLogger {
  request(info: { method: string; path: string; attempt: number }): void;
  response(info: { method: string; path: string; attempt: number; status: number | string; ms: number }): void;
  retry(info: { method: string; path: string; attempt: number; delayMs: number; reason: string }): void;
}

export const silentLogger: RequestLogger = { request() {}, response() {}, retry() {} };

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
