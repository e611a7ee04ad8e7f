import { mkdtempSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExportStateStore } from '../../../src/exporter/state-store.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { MOCK_API, useFakeApi } from '../../helpers/fake-api.js';

// Several email types into one file: a local failure (full disk) stops every type with exit 8,
// the file holds exactly what the one state committed, and the next run completes every type.
const BASE = MOCK_API;
const api = useFakeApi();

beforeEach(() => {
  // Two pages per type: [<type>-1] then [<type>-2].
  for (const type of ['EMAIL_OPEN', 'EMAIL_CLICK']) {
    const event = (n: number) => ({
      eventId: `${type}-${n}`,
      eventType: type,
      contactId: 'c',
      occurredAt: `2025-01-0${n}T00:00:00Z`,
    });
    api.agent
      .get(BASE)
      .intercept({
        path: '/v2/exports/email-events',
        method: 'POST',
        body: (b) => JSON.parse(b).eventType === type && JSON.parse(b).cursor === undefined,
      })
      .reply(200, { data: { events: [event(1)] }, pagination: { nextCursor: `${type}-c1` } })
      .persist();
    api.agent
      .get(BASE)
      .intercept({
        path: '/v2/exports/email-events',
        method: 'POST',
        body: (b) => JSON.parse(b).eventType === type && JSON.parse(b).cursor === `${type}-c1`,
      })
      .reply(200, { data: { events: [event(2)] }, pagination: { nextCursor: null } })
      .persist();
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

const run = (args: string[]) =>
  cnvInProcess(['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', ...args], {
    env: api.env,
    dispatcher: api.dispatcher,
  });
const ids = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).eventId as string);

describe('export email-events, several types into one file', () => {
  it('ENOSPC on a write: exit 8 naming the file, every type stopped, the file is what the state committed; the next run completes each row once', async () => {
    const out = join(mkdtempSync(join(api.dir, 'out-')), 'events.ndjson');
    const probe = await open(join(api.dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<unknown> };
    await probe.close();
    const real = proto.write;
    let writes = 0;
    const spy = vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, ...args: unknown[]) {
      return ++writes === 2
        ? Promise.reject(Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' }))
        : real.apply(this, args);
    });
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(8);
    expect(res.stderr).toContain(`cannot write the output file ${out}`);
    spy.mockRestore();
    const state = (await ExportStateStore.open(api.dir)).list()[0];
    expect(state.runs.at(-1)).toMatchObject({ status: 'failed' });
    const committed = state.current.output.kind === 'file' ? state.current.output.bytes : -1;
    expect(readFileSync(out).subarray(0, committed).toString('utf8').split('\n').filter(Boolean)).toHaveLength(
      state.current.rows,
    );

    const again = await run(['--out', out]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ids(out).sort()).toEqual(['EMAIL_CLICK-1', 'EMAIL_CLICK-2', 'EMAIL_OPEN-1', 'EMAIL_OPEN-2']);
    const done = (await ExportStateStore.open(api.dir)).list()[0];
    expect(done.emailType).toBe('EMAIL_OPEN,EMAIL_CLICK');
    expect(done.current.lanes).toMatchObject({
      EMAIL_OPEN: { cursor: 'EMAIL_OPEN-c1', rows: 2 },
      EMAIL_CLICK: { cursor: 'EMAIL_CLICK-c1', rows: 2 },
    });
  });

  it('another type list on the same state is refused (exit 2); --defer-commit with several types too', async () => {
    const out = join(mkdtempSync(join(api.dir, 'out-')), 'events.ndjson');
    expect((await run(['--out', out, '--state-key', 'k'])).exitCode).toBe(0);
    const other = await cnvInProcess(['export', 'email-events', '--type', 'all', '--out', out, '--state-key', 'k'], {
      env: api.env,
      dispatcher: api.dispatcher,
    });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('belongs to a email-events EMAIL_OPEN,EMAIL_CLICK export, not email-events all');
    const defer = await run(['--defer-commit']);
    expect(defer.exitCode).toBe(2);
    expect(defer.stderr).toContain('--defer-commit applies to one type at a time');
  });
});
