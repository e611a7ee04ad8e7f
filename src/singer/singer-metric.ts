/**
 * A METRIC line as the Meltano SDK writes it on stderr (`INFO METRIC: {...}`: the Singer spec's
 * metrics, which Meltano and log tools read): a counter or timer, its value and tags, and the pid
 * as the SDK tags it. The tap's and the target's one writer (docs/singer.md, docs/target.md).
 */
export function metricLine(
  type: 'counter' | 'timer',
  metric: string,
  value: number,
  tags: Record<string, unknown>,
  pid = process.pid,
): string {
  return `INFO METRIC: ${JSON.stringify({ type, metric, value, tags: { ...tags, pid } })}`;
}
