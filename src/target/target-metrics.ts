import { ROW_STATUSES, type RowStatus } from '../batch/types.js';
import type { BatchCounts } from '../batch/summary.js';

/**
 * A METRIC line as the Meltano SDK writes it on stderr (`INFO METRIC: {...}`: the Singer spec's
 * metrics, which Meltano and log tools read): a counter or timer, its value and tags, and the pid
 * as the SDK tags it.
 */
export function metricLine(
  type: 'counter' | 'timer',
  metric: string,
  value: number,
  tags: Record<string, unknown>,
): string {
  return `INFO METRIC: ${JSON.stringify({ type, metric, value, tags: { ...tags, pid: process.pid } })}`;
}

/** What one stream came to, for its METRIC lines and its summary line. */
export interface StreamTotals {
  stream: string;
  /** contacts, events, audience, campaign, records, ignore. */
  kind: string;
  /** RECORD messages read. */
  records: number;
  /** Per outcome; none for an ignored stream. */
  counts?: BatchCounts;
  /** Failed rows kept for the next run, and rows of earlier runs sent again. */
  kept: number;
  replayed: number;
}

/** The record_count counters of a stream: the records read, and the rows of each outcome (tag `status`). */
export function streamMetrics(t: StreamTotals): string[] {
  const lines = [metricLine('counter', 'record_count', t.records, { stream: t.stream })];
  for (const status of ROW_STATUSES)
    if ((t.counts?.count(status) ?? 0) > 0)
      lines.push(metricLine('counter', 'record_count', t.counts!.count(status), { stream: t.stream, status }));
  return lines;
}

/** `stream contacts (contacts): 200 records: created 150, updated 48, unchanged 2; 0 failed, 0 invalid, 0 skipped`. */
export function streamSummary(t: StreamTotals): string {
  const head = `stream ${t.stream} (${t.kind}): ${t.records} ${t.records === 1 ? 'record' : 'records'}`;
  if (!t.counts) return `${head}: not sent`;
  const c = t.counts;
  const done = ROW_STATUSES.filter((s) => !BAD.includes(s) && c.count(s) > 0).map((s) => `${s} ${c.count(s)}`);
  const bad = BAD.map((s) => `${c.count(s)} ${s}`);
  const kept =
    t.kept > 0 || t.replayed > 0 ? `; kept for the next run ${t.kept}, sent again from earlier runs ${t.replayed}` : '';
  return `${head}: ${done.length > 0 ? done.join(', ') : 'nothing done'}; ${bad.join(', ')}${kept}`;
}

const BAD: readonly RowStatus[] = ['failed', 'invalid', 'held', 'skipped'];
