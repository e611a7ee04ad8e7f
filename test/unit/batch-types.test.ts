import { describe, expect, it } from 'vitest';
import { BatchCounts, summaryData, summaryLine } from '../../src/batch/summary.js';
import { ROW_STATUSES, SUCCESS_STATUSES, type RowStatus } from '../../src/batch/types.js';

describe('row statuses, listed once', () => {
  it('the done statuses, then the others, in the order a summary lists them', () => {
    expect(ROW_STATUSES).toEqual([
      'added',
      'created',
      'updated',
      'unchanged',
      'tracked',
      'duplicate',
      'removed',
      'valid',
      'failed',
      'invalid',
      'held',
      'skipped',
    ]);
    expect([...SUCCESS_STATUSES]).toEqual(ROW_STATUSES.slice(0, 7));
  });

  it("a run's summary counts each status in that order, whatever order the rows ended in", () => {
    const counts = new BatchCounts();
    const ended: RowStatus[] = ['skipped', 'duplicate', 'failed', 'created', 'unchanged', 'created'];
    ended.forEach((status, i) => counts.add({ status, line: i + 2, identifier: `row${i}` }));
    const info = { elapsedMs: 1000, dryRun: false };
    expect(Object.keys(summaryData(counts, info).byStatus as object)).toEqual([
      'created',
      'unchanged',
      'duplicate',
      'failed',
      'skipped',
    ]);
    expect(counts.succeeded).toBe(4);
    expect(summaryLine(counts, info)).toContain('4 succeeded (created 2, unchanged 1, duplicate 1)');
  });
});
