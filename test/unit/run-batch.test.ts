import { describe, expect, it } from 'vitest';
import { runBatch, type RunBatchOptions } from '../../src/batch/run-batch.js';
import type { BatchItem, ItemOutcome, PreparedRow, RowResult } from '../../src/batch/types.js';
import { TransientError } from '../../src/errors.js';

type Payload = { key: string };

async function* rowsOf(rows: Array<PreparedRow<Payload>>): AsyncGenerator<PreparedRow<Payload>> {
  for (const row of rows) yield row;
}

const items = (n: number, key = (i: number) => `k${i}`): Array<PreparedRow<Payload>> =>
  Array.from({ length: n }, (_, i) => ({ line: i + 2, identifier: `id${i}`, payload: { key: key(i) } }));

const ok = (batch: BatchItem<Payload>[]): ItemOutcome[] =>
  batch.map((item) => ({ status: 'added', id: `svc-${item.identifier}` }));

/** A sender whose calls stay open until the test releases them. */
function controlledSender() {
  const calls: Array<{ items: BatchItem<Payload>[]; release: (outcomes?: ItemOutcome[] | Error) => void }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const waiters: Array<() => void> = [];
  const send = (batch: BatchItem<Payload>[]) =>
    new Promise<ItemOutcome[]>((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      calls.push({
        items: batch,
        release: (outcomes) => {
          inFlight--;
          if (outcomes instanceof Error) reject(outcomes);
          else resolve(outcomes ?? ok(batch));
        },
      });
      waiters.splice(0).forEach((w) => w());
    });
  const untilCalls = async (n: number) => {
    while (calls.length < n) await new Promise<void>((r) => waiters.push(r));
  };
  return {
    send,
    calls,
    untilCalls,
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
  };
}

async function run(opts: Partial<RunBatchOptions<Payload>> & Pick<RunBatchOptions<Payload>, 'rows' | 'send'>) {
  const results: RowResult[] = [];
  const outcome = await runBatch<Payload>({
    chunkSize: 10,
    concurrency: 2,
    onResult: (r) => void results.push(r),
    ...opts,
  });
  return { results, ...outcome };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('runBatch', () => {
  it('chunks to the limit and gives every row exactly one result, in input order', async () => {
    const sizes: number[] = [];
    const { results, stoppedBy } = await run({
      rows: rowsOf(items(2500)),
      chunkSize: 1000,
      concurrency: 3,
      send: async (batch) => {
        sizes.push(batch.length);
        await tick();
        return ok(batch);
      },
    });
    expect(stoppedBy).toBeUndefined();
    expect(sizes).toEqual([1000, 1000, 500]);
    expect(results).toHaveLength(2500);
    expect(results.map((r) => r.line)).toEqual(items(2500).map((r) => r.line));
    expect(results[7]).toEqual({ line: 9, identifier: 'id7', status: 'added', id: 'svc-id7' });
  });

  it('never has more than --concurrency sends in flight', async () => {
    const sender = controlledSender();
    const done = run({ rows: rowsOf(items(100)), chunkSize: 5, concurrency: 3, send: sender.send });
    for (let released = 0; released < 20; released++) {
      await sender.untilCalls(released + 1);
      await tick();
      expect(sender.inFlight).toBeLessThanOrEqual(3);
      sender.calls[released].release();
    }
    const { results } = await done;
    expect(sender.maxInFlight).toBe(3);
    expect(results).toHaveLength(100);
  });

  it('item outcomes (failures inside a success answer) are results, not stops', async () => {
    const { results, stoppedBy } = await run({
      rows: rowsOf(items(4)),
      send: async (batch) =>
        batch.map((item, i) =>
          i % 2
            ? { status: 'failed', error: 'contact_not_found', message: 'no' }
            : { status: 'added', id: item.identifier },
        ),
    });
    expect(stoppedBy).toBeUndefined();
    expect(results.map((r) => r.status)).toEqual(['added', 'failed', 'added', 'failed']);
    expect(results[1]).toMatchObject({ error: 'contact_not_found', message: 'no' });
  });

  it('rows with a known outcome (invalid, done earlier) are never sent and keep their place', async () => {
    const rows: Array<PreparedRow<Payload>> = [
      { line: 2, identifier: 'a', payload: { key: 'a' } },
      { line: 3, identifier: '', outcome: { status: 'invalid', error: 'invalid_email', message: 'bad' } },
      { line: 4, identifier: 'c', outcome: { status: 'added', id: 'x', message: 'done in an earlier run' } },
      { line: 5, identifier: 'd', payload: { key: 'd' } },
    ];
    const sent: string[] = [];
    const { results } = await run({
      rows: rowsOf(rows),
      send: async (batch) => (sent.push(...batch.map((b) => b.identifier)), ok(batch)),
    });
    expect(sent).toEqual(['a', 'd']);
    expect(results.map((r) => [r.line, r.status])).toEqual([
      [2, 'added'],
      [3, 'invalid'],
      [4, 'added'],
      [5, 'added'],
    ]);
  });

  it('with an ordering key, a chunk waits for an earlier unfinished chunk sharing a key; others go concurrently', async () => {
    const sender = controlledSender();
    // chunks of 2: [A,B] [C,D] [E,A] [F,G]
    const keys = ['A', 'B', 'C', 'D', 'E', 'A', 'F', 'G'];
    const done = run({
      rows: rowsOf(items(8, (i) => keys[i])),
      chunkSize: 2,
      concurrency: 4,
      send: sender.send,
      orderKey: (p) => p.key,
    });
    await sender.untilCalls(3);
    await tick();
    const keysOfCall = (i: number) => sender.calls[i].items.map((it) => it.payload.key);
    expect(sender.calls.map((_, i) => keysOfCall(i))).toEqual([
      ['A', 'B'],
      ['C', 'D'],
      ['F', 'G'],
    ]);
    sender.calls[1].release();
    await tick();
    expect(sender.calls).toHaveLength(3); // [E,A] still waits for [A,B]
    sender.calls[0].release();
    await sender.untilCalls(4);
    expect(keysOfCall(3)).toEqual(['E', 'A']);
    sender.calls[2].release();
    sender.calls[3].release();
    const { results } = await done;
    expect(results.map((r) => r.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('ordering is transitive: three chunks with one key apply one after another', async () => {
    const order: string[] = [];
    await run({
      rows: rowsOf(items(3, () => 'same')),
      chunkSize: 1,
      concurrency: 3,
      orderKey: (p) => [p.key],
      send: async (batch) => {
        order.push(`start ${batch[0].identifier}`);
        await new Promise((r) => setTimeout(r, batch[0].identifier === 'id0' ? 30 : 1));
        order.push(`end ${batch[0].identifier}`);
        return ok(batch);
      },
    });
    expect(order).toEqual(['start id0', 'end id0', 'start id1', 'end id1', 'start id2', 'end id2']);
  });

  it('retries exhausted: stops sending, lets chunks in flight finish, and marks the rest skipped', async () => {
    const sender = controlledSender();
    const done = run({ rows: rowsOf(items(50)), chunkSize: 10, concurrency: 2, send: sender.send });
    await sender.untilCalls(2);
    sender.calls[0].release(new TransientError('POST /x failed after 4 attempts', { code: 'internal_error' }));
    await tick();
    expect(sender.calls).toHaveLength(2); // nothing new once stopped
    sender.calls[1].release();
    const { results, stoppedBy } = await done;
    expect(stoppedBy).toBeInstanceOf(TransientError);
    expect(results).toHaveLength(50);
    expect(
      results
        .slice(0, 10)
        .every((r) => r.status === 'skipped' && r.error === 'internal_error' && /no confirmed answer/.test(r.message!)),
    ).toBe(true);
    expect(results.slice(10, 20).every((r) => r.status === 'added')).toBe(true);
    expect(results.slice(20).every((r) => r.status === 'skipped' && r.error === 'not_sent')).toBe(true);
  });

  it('an abort stops sending; sends in flight finish; every row still gets a result', async () => {
    const controller = new AbortController();
    const sender = controlledSender();
    const done = run({
      rows: rowsOf(items(30)),
      chunkSize: 10,
      concurrency: 1,
      send: sender.send,
      signal: controller.signal,
    });
    await sender.untilCalls(1);
    controller.abort(new Error('interrupted'));
    sender.calls[0].release();
    const { results, stoppedBy } = await done;
    expect((stoppedBy as Error).message).toBe('interrupted');
    expect(sender.calls).toHaveLength(1);
    expect(results.filter((r) => r.status === 'added')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'skipped')).toHaveLength(20);
  });

  it('after an abort, sends still running past the grace period are aborted', async () => {
    const controller = new AbortController();
    const { results } = await (async () => {
      const pending = run({
        rows: rowsOf(items(2)),
        chunkSize: 1,
        concurrency: 2,
        graceMs: 10,
        signal: controller.signal,
        send: (batch, signal) =>
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      });
      await tick();
      controller.abort(Object.assign(new Error('interrupted by SIGINT'), { code: 'interrupted' }));
      return pending;
    })();
    expect(results.map((r) => [r.status, r.error])).toEqual([
      ['skipped', 'interrupted'],
      ['skipped', 'interrupted'],
    ]);
  });

  it('an input error mid-way stops the run after what was read', async () => {
    async function* broken(): AsyncGenerator<PreparedRow<Payload>> {
      yield* items(3);
      throw new Error('file.csv line 5: bad');
    }
    const { results, stoppedBy } = await run({ rows: broken(), chunkSize: 2, send: async (b) => ok(b) });
    expect((stoppedBy as Error).message).toMatch(/line 5/);
    expect(results.map((r) => r.status)).toEqual(['added', 'added', 'skipped']);
  });

  it('a dry run sends nothing and marks sendable rows valid', async () => {
    let calls = 0;
    const { results } = await run({ rows: rowsOf(items(3)), dryRun: true, send: async (b) => (calls++, ok(b)) });
    expect(calls).toBe(0);
    expect(results.map((r) => r.status)).toEqual(['valid', 'valid', 'valid']);
  });

  it('a sender that answers the wrong number of outcomes stops the run', async () => {
    const { results, stoppedBy } = await run({ rows: rowsOf(items(3)), send: async () => [] });
    expect((stoppedBy as Error).message).toMatch(/0 results for 3 items/);
    expect(results.every((r) => r.status === 'skipped')).toBe(true);
  });
});

describe('runBatch: stopping and back-pressure never spin', () => {
  async function* inArrays(
    rows: Array<PreparedRow<Payload>>,
    size = 1000,
    counter?: { read: number },
  ): AsyncGenerator<Array<PreparedRow<Payload>>> {
    for (let i = 0; i < rows.length; i += size) {
      const batch = rows.slice(i, i + size);
      if (counter) counter.read += batch.length;
      yield batch;
    }
  }

  it('an abort with a send in flight and 20,000 rows after it: timers still run, and the run ends once the send settles', async () => {
    const controller = new AbortController();
    const sender = controlledSender();
    const done = run({
      rows: inArrays(items(20_000)),
      chunkSize: 10,
      concurrency: 1,
      send: sender.send,
      signal: controller.signal,
    });
    await sender.untilCalls(1);
    controller.abort(new Error('interrupted'));
    // Before the fix the engine waited on a drain() that resolved at once: a microtask loop that
    // starved every timer and I/O (the send in flight could never settle).
    let timerRan = false;
    await new Promise<void>((resolve) => setTimeout(() => ((timerRan = true), resolve()), 20));
    expect(timerRan).toBe(true);
    sender.calls[0].release();
    const { results } = await done;
    expect(sender.calls).toHaveLength(1);
    expect(results).toHaveLength(20_000);
    expect(results.filter((r) => r.status === 'added')).toHaveLength(10);
    expect(results.slice(10).every((r) => r.status === 'skipped' && r.error === 'not_sent')).toBe(true);
  });

  it('an open chunk holding back 20,000 known outcomes is sent rather than waited for', async () => {
    // One row to send, then rows done in an earlier run: the open chunk (1 of 10) held back every
    // result after it, and the engine waited for it forever.
    const rows: Array<PreparedRow<Payload>> = [
      ...items(1),
      ...Array.from({ length: 20_000 }, (_, i) => ({
        line: i + 3,
        identifier: `done${i}`,
        outcome: { status: 'added' as const },
      })),
    ];
    const calls: number[] = [];
    const { results } = await run({
      rows: inArrays(rows),
      chunkSize: 10,
      send: async (b) => (calls.push(b.length), ok(b)),
    });
    expect(calls).toEqual([1]);
    expect(results).toHaveLength(20_001);
    expect(results.map((r) => r.line)).toEqual(rows.map((r) => r.line));
  });

  it('a sink that fails stops the run promptly: the rest of the input is not read', async () => {
    const counter = { read: 0 };
    let written = 0;
    const failure = new Error('ENOSPC: no space left on device');
    const pending = runBatch<Payload>({
      rows: inArrays(items(200_000), 1000, counter),
      chunkSize: 10,
      concurrency: 4,
      send: async (b) => ok(b),
      onResult: () => {
        if (++written > 500) throw failure;
      },
    });
    await expect(pending).rejects.toBe(failure);
    expect(counter.read).toBeLessThan(20_000);
  });

  it('with a record, at most maxUnrecorded sent rows are ever without a recorded result', async () => {
    let recorded = 0;
    const waiters: Array<() => void> = [];
    const record = {
      recorded: () => recorded,
      error: () => undefined,
      waitBeyond: (n: number) => (recorded > n ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    };
    const released: RowResult[] = [];
    let maxAtRisk = 0;
    let sentRows = 0;
    const pending = run({
      rows: rowsOf(items(100)),
      chunkSize: 10,
      concurrency: 8,
      record,
      maxUnrecorded: 20,
      onResult: (r) => void released.push(r),
      send: async (b) => {
        sentRows += b.length;
        maxAtRisk = Math.max(maxAtRisk, sentRows - recorded);
        return ok(b);
      },
    });
    // The "disk" records what was released, a little later, until the run is over.
    let over = false;
    void pending.then(() => (over = true));
    while (!over) {
      await tick();
      recorded = released.length;
      waiters.splice(0).forEach((w) => w());
    }
    await pending;
    expect(released.map((r) => r.status)).toEqual(Array(100).fill('added'));
    expect(sentRows).toBe(100);
    expect(maxAtRisk).toBeLessThanOrEqual(20);
  });
});
