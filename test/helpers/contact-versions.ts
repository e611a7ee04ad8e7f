import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { EmulatorFixture } from './emulator.js';

// Two versions of one contact that share their updatedAt (test/e2e/second-precision.test.ts,
// test/e2e/millisecond-identity.test.ts): each written through the API, read back as exported.

/** Upserts the contact's city through the API; the updatedAt Get contact shows after it. */
export async function setCity(fx: EmulatorFixture, email: string, city: string): Promise<string> {
  const res = await fetch(`${fx.emulator.url}/v2/contacts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': fx.emulator.keys.full },
    body: JSON.stringify({ email, fields: { city } }),
  });
  expect(res.status).toBeLessThan(300);
  const got = await fetch(`${fx.emulator.url}/v2/contacts?email=${encodeURIComponent(email)}`, {
    headers: { 'x-api-key': fx.emulator.keys.full },
  });
  return ((await got.json()) as { data: { contact: { updatedAt: string } } }).data.contact.updatedAt;
}

/** The contacts of an NDJSON export file. */
export function exportedContacts(
  path: string,
): Array<{ id: string; email: string; updatedAt: string; fields: Record<string, unknown> }> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The first `change` line of `contacts sync --plan --json`. */
export function firstPlanChange(stdout: string): Record<string, unknown> | undefined {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.type === 'change');
}
