import { describe, expect, it } from 'vitest';
import { progressText } from '../../src/batch/progress.js';

describe('the progress line of a file run', () => {
  it('estimates the total from the share of the file read, then knows it exactly', () => {
    // 400 rows read from the first 40,000 of 100,000 bytes: about 1,000 rows.
    expect(progressText(200, 1, 2_000, { rows: 400, size: 100_000, bytes: 40_000 })).toBe(
      '200 / ~1,000 rows (20%) · 100 rows/s · about 8s left · 1 failed or invalid',
    );
    expect(progressText(969, 0, 5_000, { rows: 1_000, total: 1_000, size: 100_000, bytes: 100_000 })).toBe(
      '969 / 1,000 rows (96%) · 194 rows/s · about 1s left · 0 failed or invalid',
    );
    expect(progressText(50_000, 0, 600_000, { rows: 60_000, total: 200_000, bytes: 1 })).toMatch(
      / · about 30m 0s left · /,
    );
    expect(progressText(50_000, 0, 1_200_000, { rows: 60_000, total: 200_000, bytes: 1 })).toMatch(
      / · about 1h 0m left · /,
    );
  });

  it('an estimate never reaches 100% before the end; no time left in the first second', () => {
    expect(progressText(400, 0, 4_000, { rows: 400, size: 100_000, bytes: 40_000 })).toMatch(
      /^400 \/ ~1,000 rows \(40%\)/,
    );
    expect(progressText(1_000, 0, 4_000, { rows: 1_000, size: 100_000, bytes: 99_000 })).toMatch(
      /^1,000 \/ ~1,010 rows \(99%\) · 250 rows\/s · about 1s left/,
    );
    expect(progressText(10, 0, 500, { rows: 100, size: 1_000, bytes: 1_000 })).toBe(
      '10 / ~100 rows (10%) · 20 rows/s · 0 failed or invalid',
    );
  });

  it('without a size (stdin) the line has rows and rate only, as before', () => {
    expect(progressText(969, 2, 5_000, { rows: 1_000, bytes: 50_000 })).toBe(
      '969 rows · 194 rows/s · 2 failed or invalid',
    );
  });
});
