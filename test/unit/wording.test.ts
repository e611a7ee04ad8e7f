import { describe, expect, it } from 'vitest';
import { BatchCounts, quietFailureLine, summaryLine } from '../../src/batch/summary.js';
import { didYouMean, suggest } from '../../src/cmdutil/suggest.js';
import { summaryLine as exportLine, type ExportSummary } from '../../src/exporter/run-summary.js';
import { duration, plural, rate } from '../../src/output/wording.js';

describe('wording', () => {
  it('plurals, durations and rates', () => {
    expect(plural(1, 'row')).toBe('1 row');
    expect(plural(0, 'row')).toBe('0 rows');
    expect(plural(2500, 'page')).toBe('2,500 pages');
    expect(duration(40)).toBe('40 ms');
    expect(duration(3240)).toBe('3.2 s');
    expect(rate(3, 40)).toBe('');
    expect(rate(0, 5000)).toBe('');
    expect(rate(2500, 3200)).toBe(', 781 rows/s');
  });

  it('a batch summary of a short run: "1 row", ms, no rate', () => {
    const counts = new BatchCounts();
    counts.add({ line: 2, identifier: 'a', status: 'created' } as never);
    expect(summaryLine(counts, { elapsedMs: 35, dryRun: false })).toBe(
      '1 row: 1 succeeded (created 1), 0 failed, 0 invalid, 0 skipped in 35 ms',
    );
  });

  it('--quiet line for a partial run names the count and the report', () => {
    const counts = new BatchCounts();
    counts.add({ line: 2, identifier: 'a', status: 'created' } as never);
    counts.add({ line: 3, identifier: 'b', status: 'failed' } as never);
    expect(quietFailureLine(counts, { elapsedMs: 1, dryRun: false, report: 'r.csv' })).toBe(
      '1 of 2 rows failed or were invalid; report: r.csv',
    );
    expect(quietFailureLine(counts, { elapsedMs: 1, dryRun: false })).toMatch(
      /^1 of 2 rows failed or were invalid; run again without --quiet/,
    );
  });

  it('an export summary explains rows an earlier run had already written, and why they came again', () => {
    const s: ExportSummary = {
      status: 'complete',
      rows: 1,
      skipped: 9,
      pages: 1,
      bytes: 10,
      elapsedMs: 75,
      stateKey: 'crm',
      moreRemains: false,
      output: 'out.csv',
      pending: false,
      cutBytes: 0,
    };
    expect(exportLine('export contacts', s)).toBe(
      `export contacts complete: 1 new row (9 rows of the last page fetched again: already written, left out) in 1 page to out.csv (75 ms); state "crm" saved; more remains: no`,
    );
  });
});

describe('suggestions', () => {
  it('finds a close spelling or a word part, and nothing for a far one', () => {
    expect(suggest('OPEN', ['EMAIL_SEND', 'EMAIL_OPEN', 'EMAIL_CLICK'])).toEqual(['EMAIL_OPEN']);
    expect(suggest('contactz', ['contacts', 'events', 'config'])).toEqual(['contacts']);
    expect(suggest('jsno', ['json', 'ndjson', 'csv'])).toEqual(['json']);
    expect(didYouMean('zzzzzz', ['json', 'csv'])).toBeUndefined();
    expect(didYouMean('colour', ['color', 'json'])).toBe('did you mean color?');
  });
});
