import fs, { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExportStateStore } from '../../../src/exporter/state-store.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { MOCK_API, useFakeApi } from '../../helpers/fake-api.js';

// A full disk, a read-only file system or a denied write under the output, the state or the
// lock: exit 8 naming the path, the data as correct as ever, the run closed as failed.
const BASE = MOCK_API;
const KEY = 'sk_live_mock@api.test/contacts';
const api = useFakeApi({ contactFields: true });

afterEach(() => {
  vi.restoreAllMocks();
});

const contact = (id: string) => ({ id, email: `${id}@example.com`, updatedAt: '2025-01-01T00:00:00Z' });
function page(cursor: string | undefined, rows: unknown[], next: string | null) {
  api.agent
    .get(BASE)
    .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === cursor })
    .reply(200, { data: { contacts: rows }, pagination: { nextCursor: next } });
}
const run = (args: string[]) =>
  cnvInProcess(['export', 'contacts', ...args], { env: api.env, dispatcher: api.dispatcher });
const state = async () => (await ExportStateStore.open(api.dir)).list()[0];
const errno = (code: string) => Object.assign(new Error(`${code}: injected, write`), { code });
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).id);

describe('export: local file system failures are exit 8, not a bug', () => {
  it.each(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EACCES'])(
    '%s writing the output: exit 8 naming the file; page 1 stays committed; the run is closed as failed',
    async (code) => {
      page(undefined, [contact('a')], 'c1');
      page('c1', [contact('bb')], null);
      const out = join(mkdtempSync(join(api.dir, 'out-')), 'contacts.ndjson');
      const probe = await open(join(api.dir, 'probe'), 'w');
      const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<unknown> };
      await probe.close();
      const real = proto.write;
      let writes = 0;
      vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, ...args: unknown[]) {
        return ++writes === 2 ? Promise.reject(errno(code)) : real.apply(this, args);
      });
      const res = await run(['--out', out]);
      expect(res.exitCode, res.stderr).toBe(8);
      expect(res.stderr).toMatch(
        new RegExp(
          `error: (disk_full|file_system_error): cannot write the output file ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*\\(${code}\\)`,
        ),
      );
      expect(res.stderr).not.toMatch(/internal|bug/);
      expect(lines(out)).toEqual(['a']);
      const s = await state();
      expect(s?.current).toMatchObject({ cursor: 'c1', rows: 1 });
      expect(s?.runs.at(-1)).toMatchObject({ status: 'failed', error: expect.stringContaining(code) });
    },
  );

  it('ENOSPC writing the state: exit 8 naming it; the next run reads the dead run as interrupted, cuts the uncommitted tail and repeats nothing', async () => {
    page(undefined, [contact('a')], 'c1');
    page('c1', [contact('bb')], 'c2');
    const out = join(mkdtempSync(join(api.dir, 'out-')), 'contacts.ndjson');
    const proto = ExportStateStore.prototype as unknown as { persist: (...a: unknown[]) => void };
    const real = proto.persist;
    let saves = 0;
    // Saves: the file named (1), page 1 (2); page 2 (3) hits a full disk, and so does everything after.
    vi.spyOn(proto, 'persist').mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (++saves >= 3) throw errno('ENOSPC');
      return real.apply(this, args);
    });
    const path = (await ExportStateStore.open(api.dir)).pathOf(`${KEY}:${out}`);
    const res = await run(['--out', out]);
    expect(res.exitCode, res.stderr).toBe(8);
    expect(res.stderr).toContain(`error: disk_full: cannot write the export state ${path}: the disk is full (ENOSPC)`);
    vi.restoreAllMocks();
    expect(lines(out)).toEqual(['a', 'bb']); // page 2 written, never committed
    expect((await state())?.runs.at(-1)?.status).toBe('running');
    const show = await cnvInProcess(['export', 'state', 'show', `${KEY}:${out}`, '--json'], { env: api.env });
    expect(JSON.parse(show.stdout).runs.at(-1).status).toBe('interrupted');

    page('c1', [contact('bb')], null);
    const next = await run(['--out', out]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/cut \d+ uncommitted bytes first/);
    expect(lines(out)).toEqual(['a', 'bb']);
    expect((await state())?.runs.map((m) => m.status)).toEqual(['interrupted', 'complete']);
  });

  it('EACCES taking the lock: exit 8 naming the lock', async () => {
    const real = fs.writeFileSync;
    fs.writeFileSync = ((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p).includes('.json.lock.')) throw errno('EACCES');
      return (real as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof fs.writeFileSync;
    syncBuiltinESMExports();
    try {
      const res = await run(['-o', 'ndjson', '--state-key', 'io']);
      expect(res.exitCode, res.stderr).toBe(8);
      expect(res.stderr).toMatch(
        /error: file_system_error: cannot write the lock .*\.json\.lock: permission denied \(EACCES\)/,
      );
    } finally {
      fs.writeFileSync = real;
      syncBuiltinESMExports();
    }
  });

  it('temporary files a killed state write or lock left are removed by the next run of that key', async () => {
    const store = await ExportStateStore.open(api.dir);
    const leftover = `${store.pathOf('io')}.tmp-1732000000abcdef`;
    writeFileSync(leftover, '{"state":');
    // A lock file half made by a process that is gone (pid 999999).
    const lockPath = `${store.pathOf('io')}.lock`;
    const making = join(dirname(lockPath), `.${basename(lockPath)}.cnv-999999-deadbeef.tmp`);
    writeFileSync(making, '{}');
    page(undefined, [contact('a')], null);
    // Rows to stdout keep a state only when --state-key names one.
    const res = await run(['-o', 'ndjson', '--state-key', 'io']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(readdirSync(store.dir).filter((n) => n.includes('.tmp-') || n.includes('.lock.'))).toEqual([]);
  });
});
