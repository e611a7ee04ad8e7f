import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { InvalidRowError } from '../../src/batch/row-body.js';
import { FLUSH_CHUNK } from '../../src/batch/run-batch.js';
import { recordKeyReader } from '../../src/target/record-key.js';
import { RowQueue } from '../../src/target/row-queue.js';
import { StateGate } from '../../src/target/state-gate.js';

describe('the states held until what they cover is durable', () => {
  it('prints each state, in order, only once every lane has a durable outcome for what was read before it, after the lanes persisted', async () => {
    const out = new PassThrough();
    const said: string[] = [];
    const lane = (name: string) => ({
      registered: 0,
      durable: 0,
      persist: async () => void said.push(`persist ${name}`),
    });
    const a = lane('a');
    const b = lane('b');
    const gate = new StateGate(out, () => [a, b]);
    a.registered = 2;
    gate.add('{"s":1}');
    b.registered = 1;
    gate.add('{"s":2}');
    a.durable = 1;
    gate.check();
    await gate.drain();
    expect(gate.printed).toBe(0);
    a.durable = 2;
    gate.check();
    await gate.drain();
    expect(gate.printed).toBe(1);
    b.durable = 1;
    gate.check();
    await gate.drain();
    expect(gate.printed).toBe(2);
    expect(gate.last).toBe('{"s":2}');
    out.end();
    expect(await text(out)).toBe('{"s":1}\n{"s":2}\n');
    expect(said.slice(0, 2)).toEqual(['persist a', 'persist b']);
  });
});

describe("a record's key", () => {
  const row = (values: Record<string, unknown>) => ({ line: 1, values });
  it('one property as text (a number by its digits), several as a JSON array; none: undefined', () => {
    expect(recordKeyReader(['id'])(row({ id: ' 42 ' }))).toBe('42');
    expect(recordKeyReader(['id'])(row({ id: 7 }))).toBe('7');
    expect(recordKeyReader(['a', 'b'])(row({ a: 'x', b: 2 }))).toBe('["x","2"]');
    expect(recordKeyReader([])(row({ id: 1 }))).toBeUndefined();
  });
  it('a key property missing or blank, or a key starting with NUL, is an invalid row', () => {
    expect(() => recordKeyReader(['id'])(row({ id: '' }))).toThrow(InvalidRowError);
    expect(() => recordKeyReader(['id'])(row({}))).toThrow('key property "id": missing or blank');
    expect(() => recordKeyReader(['id'])(row({ id: '\u0000x' }))).toThrow(InvalidRowError);
  });
});

describe("a stream's queue of rows", () => {
  it('hands its items and flushes in order (a flush once however often asked), waits for room past its limit (flushes count), and ends when closed', async () => {
    const queue = new RowQueue<number>(3);
    await queue.put(1);
    queue.flush();
    queue.flush();
    await queue.put(2);
    let third = false;
    const putting = queue.put(3).then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    const taken: unknown[] = [];
    const reading = (async () => {
      for await (const item of queue) taken.push(item === FLUSH_CHUNK ? 'flush' : item);
    })();
    await putting;
    queue.close();
    await reading;
    expect(taken).toEqual([1, 'flush', 2, 3]);
  });
});
