import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/emulator/cursor.js';
import { EmulatorError } from '../../src/emulator/error-answer.js';

function expectInvalid(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EmulatorError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_cursor' });
    return;
  }
  throw new Error('expected invalid_cursor');
}

describe('cursor', () => {
  const payload = { b: 'acme', after: '2025-01-02T03:04:05.678Z', id: 'a0000000-0000-4000-8000-000000000001', n: 3 };

  it('round-trips a payload and is opaque URL-safe text', () => {
    const c = encodeCursor(payload, 'export-contacts');
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(c).not.toContain('acme');
    expect(decodeCursor(c, 'export-contacts')).toEqual(payload);
    expect(decodeCursor(encodeCursor(null))).toBeNull();
  });

  it('rejects a tampered payload', () => {
    const c = encodeCursor(payload);
    const [body, sig] = c.split('.');
    const forged = Buffer.from(JSON.stringify({ k: '', p: { ...payload, n: 0 } })).toString('base64url');
    expectInvalid(() => decodeCursor(`${forged}.${sig}`));
    const flipped = body.slice(0, -1) + (body.endsWith('A') ? 'B' : 'A');
    expectInvalid(() => decodeCursor(`${flipped}.${sig}`));
  });

  it('rejects a tampered or truncated signature', () => {
    const [body, sig] = encodeCursor(payload).split('.');
    expectInvalid(() => decodeCursor(`${body}.${sig.slice(0, -2)}`));
    expectInvalid(() => decodeCursor(`${body}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`));
    expectInvalid(() => decodeCursor(`${body}.`));
  });

  it('rejects garbage', () => {
    for (const bad of ['', 'abc', '...', 'a.b.c', 'eyJ9.xx', '%%%.###', 42 as unknown as string]) {
      expectInvalid(() => decodeCursor(bad));
    }
  });

  it('rejects a cursor of another kind', () => {
    expectInvalid(() => decodeCursor(encodeCursor(payload, 'export-contacts'), 'export-custom-events'));
  });
});
