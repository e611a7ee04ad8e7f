import { describe, expect, it } from 'vitest';
import { BODY_LIMITS, MAX_WRITE_BYTES, WORST_SPELLING } from '../../src/limits/limits.js';

// What cnv writes in one row, spelled the worst way a server's JSON may spell it, is read back.

describe('the write cap and the read caps agree', () => {
  it('the worst spelling is 6 bytes for 1: a control character as \\u0001 (a two-byte letter as \\u00e9: 3 for 1)', () => {
    const escape = (s: string) =>
      s.replace(/[^\x20-\x7e]/gu, (c) =>
        [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
      );
    for (const value of ['\u0001', 'é', '€', '😀', '"']) {
      const spelled = value === '"' ? '\\"' : escape(value);
      expect(Buffer.byteLength(spelled) / Buffer.byteLength(value), value).toBeLessThanOrEqual(WORST_SPELLING);
    }
    expect(Buffer.byteLength(escape('\u0001'))).toBe(WORST_SPELLING);
  });

  it('a row of MAX_WRITE_BYTES spelled the worst way, with 4 MiB for the rest of its record, fits an answer and an export row', () => {
    const worst = WORST_SPELLING * MAX_WRITE_BYTES + 4 * 1024 * 1024;
    expect(worst).toBeLessThanOrEqual(BODY_LIMITS.answerBytes);
    expect(worst).toBeLessThanOrEqual(BODY_LIMITS.rowBytes);
  });
});
