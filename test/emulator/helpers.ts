import type { Emulator } from '../../src/emulator/index.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  json: any;
}

/** Calls the emulator with fetch; `key: null` sends no X-API-Key. */
export async function call(
  emu: Emulator,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = opts.key === undefined ? emu.keys.full : opts.key;
  if (key !== null) headers['x-api-key'] = key;
  const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${emu.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** Admin call (no key). */
export function admin(emu: Emulator, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  return call(emu, method, path, { key: null, body });
}

/** Asserts the spec's error body and returns it. */
export function expectError(res: ApiResponse, status: number, code: string): { code: string; message: string } {
  if (res.status !== status || res.json?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.json)}`);
  }
  return res.json.error;
}
