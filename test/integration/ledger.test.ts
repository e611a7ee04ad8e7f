import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { Ledger, type LedgerDeps } from '../../src/ledger/ledger.js';
import { ledgerJob } from '../../src/ledger/ledger-job.js';
import { ledgerPaths, readLedger } from '../../src/ledger/ledger-state.js';
import { journalLine, type LedgerRecord, type RunInfo } from '../../src/ledger/ledger-file.js';
import { listLedgers, resetLedger, showLedger } from '../../src/ledger/ledger-view.js';

// The ledger's files (docs/ledger.md, "The files"): a sealed base and a journal whose lines chain
// a SHA-256 from the base's seal. What a run records is on disk when `record` resolves; an edit,
// a cut or a missing part is found at the next open, which then trusts nothing (a note says why).

const job = ledgerJob(
  { baseUrl: 'https://api.example.com', apiKey: 'sk_live_ab_0123456789' },
  'records sync',
  'c0',
  'clientDedupKey',
);
const RUN: RunInfo = {
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  status: 'complete',
  counts: {},
};
const put = (key: string, digest: string, id: string | null = null): LedgerRecord => [
  'put',
  key,
  digest,
  'ok',
  id,
  null,
];

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-ledger-'));
  const notes: string[] = [];
  const deps: LedgerDeps = {
    stateDir: { path: dir, where: { dir } },
    notices: { warn: (m) => notes.push(`warning: ${m}`), info: (m) => notes.push(m), redact: (t) => t },
    clock: { now: () => Date.parse('2026-01-01T00:00:02Z') } as LedgerDeps['clock'],
  };
  const paths = ledgerPaths(deps.stateDir, job.key, false);
  return { dir, deps, notes, paths };
}

async function seeded() {
  const s = setup();
  const ledger = await Ledger.open(s.deps, job, true);
  await ledger.record([put('a', 'd1', 'id-a'), put('b', 'd2', 'id-b'), put('c', 'd3')]);
  await ledger.finish(RUN, s.deps.clock);
  return s;
}

describe('the ledger (files)', () => {
  it('a first run notes that there is none, then its records are read back: the base and journal agree', async () => {
    const { deps, notes, paths } = await seeded();
    expect(notes.join('\n')).toMatch(
      /no ledger of .*records-sync\/c0\/clientDedupKey yet .* every row is sent and nothing is removed/,
    );
    const again = await Ledger.open(deps, job, false);
    expect(again.trusted).toBe(true);
    expect(again.members).toBe(2);
    expect([...again.entries.keys()]).toEqual(['a', 'b', 'c']);
    // Compacted: the journal holds only its first line, which names the base's seal.
    expect(readFileSync(paths.journal, 'utf8').trim().split('\n')).toHaveLength(1);
    const state = readLedger(paths, job.key);
    expect(state).toMatchObject({ kind: 'ok', pending: 0, lastRun: RUN });
  });

  it('a run killed before its end: its journal is read on top of the base (a cut last line is left out)', async () => {
    const { deps, paths } = await seeded();
    const ledger = await Ledger.open(deps, job, true);
    await ledger.record([put('d', 'd4', 'id-d'), ['del', 'a']]);
    // kill -9: no finish, no compaction; a write cut in its middle.
    appendFileSync(paths.journal, '["put","e","d5","ok",null,null]\t0123');
    await ledger.close();
    const state = readLedger(paths, job.key);
    expect(state.kind === 'ok' && [...state.entries.keys()]).toEqual(['b', 'c', 'd']);
    expect(state).toMatchObject({ pending: 2, torn: true });
    // The next run appends after the whole lines (the cut one is cut off), and is killed too.
    const next = await Ledger.open(deps, job, true);
    expect(next.trusted).toBe(true);
    await next.record([put('f', 'd6')]);
    await next.close();
    expect([...(await Ledger.open(deps, job, false)).entries.keys()]).toEqual(['b', 'c', 'd', 'f']);
  });

  it.each([
    [
      'a base edited',
      (p: Paths) => writeFileSync(p.base, readFileSync(p.base, 'utf8').replace('"id-a"', '"id-x"')),
      /its SHA-256 is not the one written with it/,
    ],
    ['a base cut short', (p: Paths) => truncateSync(p.base, readFileSync(p.base).length - 30), /cut short|SHA-256/],
    ['a base missing', (p: Paths) => rmSync(p.base), /its base is missing/],
    ['a journal missing', (p: Paths) => rmSync(p.journal), /its journal is missing/],
    [
      'a journal line edited',
      (p: Paths) => editJournalLine(p, 1, (l) => l.replace('"x1"', '"x2"')),
      /line 2 of its journal does not follow/,
    ],
    [
      'a journal line removed',
      (p: Paths) => editJournalLine(p, 1, () => undefined),
      /line 2 of its journal does not follow/,
    ],
    // Another base, sealed as cnv seals one (an older copy put back): the journal does not continue it.
    [
      'a base replaced',
      (p: Paths) => reseal(p, (text) => text.replace('"c","d3"', '"c","d9"')),
      /does not continue its base/,
    ],
  ])('%s: the next run trusts nothing, says why, and keeps the damaged files aside', async (_, damage, why) => {
    const s = await seeded();
    const ledger = await Ledger.open(s.deps, job, true);
    await ledger.record([put('x', 'x1'), put('y', 'y1')]);
    await ledger.close();
    damage(s.paths);
    s.notes.length = 0;
    const next = await Ledger.open(s.deps, job, true);
    expect(next.trusted).toBe(false);
    expect(next.entries.size).toBe(0);
    expect(s.notes.join('\n')).toMatch(why);
    expect(s.notes.join('\n')).toMatch(
      /is damaged .*every row is sent and nothing is removed this run; the damaged files are kept/,
    );
    expect(readdirSync(s.paths.dir).filter((n) => n.endsWith('.damaged')).length).toBeGreaterThan(0);
    await next.record([put('z', 'z1')]);
    await next.finish(RUN, s.deps.clock);
    // The run after it starts from what this one recorded, whole again.
    const after = await Ledger.open(s.deps, job, false);
    expect(after.trusted).toBe(true);
    expect([...after.entries.keys()]).toEqual(['z']);
  });

  it("a kill between the compaction's two writes (the new base, then the new journal) is no damage", async () => {
    const { deps, paths } = await seeded();
    const ledger = await Ledger.open(deps, job, true);
    await ledger.record([put('g', 'd7')]);
    // The journal as the compaction found it: this run's records, then its `run` line.
    const lines = readFileSync(paths.journal, 'utf8');
    const last = lines.trim().split('\n').at(-1)!.split('\t')[1];
    const journal = lines + journalLine(last, ['run', RUN]).text;
    await ledger.finish(RUN, deps.clock);
    // The old journal back in place of the new one (the kill came before its rename): the base says it holds it.
    writeFileSync(paths.journal, journal);
    const again = await Ledger.open(deps, job, true);
    expect(again.trusted).toBe(true);
    expect([...again.entries.keys()]).toEqual(['a', 'b', 'c', 'g']);
    await again.close();
    expect(readFileSync(paths.journal, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('one run per job: a second exits 7 naming the pid, a run that only reads takes no lock; a killed holder is taken over', async () => {
    const { deps, paths } = await seeded();
    const first = await Ledger.open(deps, job, true);
    const refused = await Ledger.open(deps, job, true).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as CliError).exitCode).toBe(7);
    expect((refused as CliError).message).toContain(`pid ${process.pid}`);
    expect((await Ledger.open(deps, job, false)).trusted).toBe(true);
    await first.close();
    // A lock whose process is gone (a kill -9) does not hold the next run.
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    writeFileSync(
      paths.lock,
      JSON.stringify({
        pid: dead,
        hostname: (await import('node:os')).hostname(),
        startedAt: new Date().toISOString(),
        token: 'x',
      }) + '\n',
    );
    const next = await Ledger.open(deps, job, true);
    await next.close();
    expect(existsSync(paths.lock)).toBe(false);
  });

  it('a symbolic link or a FIFO in place of the base is refused by name (exit 8), never followed', async () => {
    const { deps, paths } = await seeded();
    rmSync(paths.base);
    const { symlinkSync } = await import('node:fs');
    symlinkSync('/etc/hostname', paths.base);
    const err = await Ledger.open(deps, job, true).catch((e: unknown) => e);
    expect((err as CliError).exitCode).toBe(8);
    expect((err as CliError).message).toMatch(/is a symbolic link, not a regular file/);
  });

  it('list, show and reset', async () => {
    const { dir, deps } = await seeded();
    const [item] = listLedgers(dir);
    expect(item).toMatchObject({ job: job.key, state: 'ok', entries: 3, ids: 2, refused: 0, pending: 0, lastRun: RUN });
    expect(showLedger(deps, job.key).entries).toEqual([
      { key: 'a', digest: 'd1', state: 'ok', id: 'id-a', code: null },
      { key: 'b', digest: 'd2', state: 'ok', id: 'id-b', code: null },
      { key: 'c', digest: 'd3', state: 'ok', id: null, code: null },
    ]);
    await resetLedger(deps, job.key);
    expect(listLedgers(dir)).toEqual([]);
    expect(() => showLedger(deps, job.key)).toThrow(/no ledger of job/);
    await expect(resetLedger(deps, job.key)).rejects.toMatchObject({ exitCode: 5 });
  });
});

type Paths = ReturnType<typeof ledgerPaths>;

/** The base edited, then sealed again (a SHA-256 over its new body). */
function reseal(p: Paths, edit: (body: string) => string): void {
  const text = readFileSync(p.base, 'utf8');
  const body = edit(text.slice(0, text.lastIndexOf('{"sha256"')));
  writeFileSync(p.base, `${body}${JSON.stringify({ sha256: createHash('sha256').update(body).digest('hex') })}\n`);
}

/** Replaces (or, for undefined, removes) line `i` of the journal. */
function editJournalLine(p: Paths, i: number, edit: (line: string) => string | undefined): void {
  const lines = readFileSync(p.journal, 'utf8').split('\n');
  const edited = edit(lines[i]);
  if (edited === undefined) lines.splice(i, 1);
  else lines[i] = edited;
  writeFileSync(p.journal, lines.join('\n'));
}
