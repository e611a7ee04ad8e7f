import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CommitLog } from '../../src/exporter/commit-log.js';
import type { CrashHook } from '../../src/exporter/crash-points.js';
import type { RunPlan } from '../../src/exporter/export-run-options.js';
import type { ExportSummary } from '../../src/exporter/run-summary.js';
import type { ExportStateStore } from '../../src/exporter/state-store.js';
import type { ExportState, Position } from '../../src/exporter/export-state.js';

// The commit log without a server or a disk: a store that keeps what it was given.
const start: Position = {
  cursor: null,
  cursorAt: null,
  seen: [],
  output: { kind: 'stdout' },
  format: 'ndjson',
  csv: null,
  window: null,
  rows: 0,
  pages: 0,
};

function setup(more: { defer?: boolean; lost?: Error; events?: string[]; prior?: ExportState } = {}) {
  const writes: ExportState[] = [];
  const events = more.events ?? [];
  const store = {
    write: async (s: ExportState) => {
      events.push('write');
      writes.push(structuredClone(s));
    },
  } as unknown as ExportStateStore;
  const plan = {
    key: 'k',
    profile: 'default',
    baseUrl: 'http://api',
    store,
    start,
    target: { kind: 'contacts' },
    layout: null,
    restarted: false,
    prior: more.prior,
    lock: { release: async () => {}, lost: () => more.lost },
  } as RunPlan;
  const crash: CrashHook = { at: (step, page) => (events.push(`${step}:${page}`), false), page: (first) => first };
  const log = new CommitLog(plan, {
    runId: 'r1',
    startedMs: 0,
    output: 'stdout',
    firstCursor: null,
    defer: more.defer ?? false,
    now: () => 1000,
    crash,
    redact: (text) => text,
  });
  return { log, writes, events };
}
const summary = (s: Partial<ExportSummary>): ExportSummary => ({
  status: 'failed',
  rows: 0,
  skipped: 0,
  pages: 0,
  bytes: 0,
  elapsedMs: 0,
  stateKey: 'k',
  runId: 'r1',
  moreRemains: true,
  output: 'stdout',
  pending: false,
  cutBytes: 0,
  ...s,
});

describe("CommitLog: the run's side of the export state", () => {
  it('a commit is one state write between the before-state and after-state points of each page', async () => {
    const { log, writes, events } = setup();
    expect(log.needsFirstSave()).toBe(true);
    log.wrote([Buffer.from('{"id":"a"}\n')]);
    log.progress({ rows: 1, pages: 2, bytes: 11 }, 'c2');
    await log.commit({ ...start, cursor: 'c2', rows: 1, pages: 2 }, 1, 2);
    expect(events).toEqual(['before-state:1', 'before-state:2', 'write', 'after-state:1', 'after-state:2']);
    expect(log.committedOnce).toBe(true);
    expect(log.needsFirstSave()).toBe(false);
    expect(writes[0].current).toMatchObject({ cursor: 'c2', rows: 1 });
    expect(writes[0].runs[0]).toMatchObject({ runId: 'r1', status: 'running', rows: 1, pages: 2, lastCursor: 'c2' });
    expect(writes[0].runs[0].sha256).toBe(createHash('sha256').update('{"id":"a"}\n').digest('hex'));
  });

  it('--defer-commit saves a pending position; a lost lock commits nothing', async () => {
    const deferred = setup({ defer: true });
    await deferred.log.commit({ ...start, cursor: 'c2' }, 1);
    expect(deferred.writes[0].pending).toMatchObject({ cursor: 'c2', runId: 'r1' });
    expect(deferred.writes[0].current.cursor).toBeNull();
    const lost = setup({ lost: new Error('taken over') });
    await expect(lost.log.commit({ ...start, cursor: 'c2' }, 1)).rejects.toMatchObject({ code: 'lock_lost' });
    expect(lost.writes).toEqual([]);
  });

  it('close() saves the last manifest, except for a run that failed before committing anything', async () => {
    const { log, writes } = setup();
    await log.commit({ ...start, cursor: 'c2' }, 1);
    log.manifest.status = 'complete';
    await log.close(summary({ status: 'complete', moreRemains: false }), 2000);
    expect(writes.at(-1)!.runs[0]).toMatchObject({
      status: 'complete',
      moreRemains: false,
      finishedAt: new Date(2000).toISOString(),
    });
    const prior = writes.at(-1)!;
    const failed = setup({ prior });
    await failed.log.close(summary({ status: 'failed' }), 3000);
    expect(failed.writes).toEqual([]);
  });
});
