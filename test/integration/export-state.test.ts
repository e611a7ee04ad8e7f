import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountIdentity, urlWithoutCredentials } from '../../src/config/account-identity.js';
import { defaultStateKey, checkStateKey, stateFileStem } from '../../src/exporter/state-key.js';
import { ExportStateStore } from '../../src/exporter/state-store.js';
import { MANIFESTS_KEPT, withManifest, type ExportState, type Manifest } from '../../src/exporter/export-state.js';

const dir = () => mkdtempSync(join(tmpdir(), 'cnv-state-'));

function state(key: string, patch: Partial<ExportState> = {}): ExportState {
  return {
    version: 1,
    key,
    kind: 'contacts',
    profile: 'default',
    baseUrl: 'https://api.example.com',
    account: 'sk_live_demo@api.example.com',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    current: {
      cursor: 'c1',
      cursorAt: '2026-01-01T00:00:00.000Z',
      seen: ['a@1'],
      output: { kind: 'file', path: '/tmp/x.csv', bytes: 10, file: '1:2', tail: 'ab' },
      format: 'csv',
      csv: { columns: ['id', '_extra'], omitted: [], nullAs: '', excelSafe: false },
      window: null,
      rows: 5,
      pages: 1,
    },
    runs: [],
    ...patch,
  };
}

describe('state keys', () => {
  it("are keyed by the account (the key's identity, host and path of the base URL), kind and email type", () => {
    const demo = accountIdentity('https://api.example.com/', 'sk_live_demo_4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c');
    expect(demo).toBe('sk_live_demo@api.example.com');
    expect(defaultStateKey(demo, 'contacts', undefined, 'stdout')).toBe('sk_live_demo@api.example.com/contacts/stdout');
    expect(
      defaultStateKey(
        accountIdentity('http://u:p@127.0.0.1:4010/base', 'sk_live_ops_x'),
        'email-events',
        'EMAIL_OPEN',
        'stdout',
      ),
    ).toBe('sk_live_ops@127.0.0.1:4010/base/email-events/EMAIL_OPEN/stdout');
  });

  it('name a key of another shape by a digest, never the key itself', () => {
    const id = accountIdentity('https://api.example.com', 'plain-secret-token');
    expect(id).toMatch(/^key-[0-9a-f]{12}@api\.example\.com$/);
    expect(id).not.toContain('secret');
    expect(accountIdentity('https://api.example.com', 'other-token')).not.toBe(id);
  });

  it('name their output: a file by its absolute path, or stdout', () => {
    expect(defaultStateKey('sk_live_demo@api.example.com', 'contacts', undefined, { file: '/data/c.csv' })).toBe(
      'sk_live_demo@api.example.com/contacts:/data/c.csv',
    );
    expect(defaultStateKey('sk_live_demo@api.example.com', 'email-events', 'EMAIL_OPEN', 'stdout')).toBe(
      'sk_live_demo@api.example.com/email-events/EMAIL_OPEN/stdout',
    );
  });

  it('base URLs are kept without a user or password', () => {
    expect(urlWithoutCredentials('https://ops:hunter2@api.example.com/v2')).toBe('https://api.example.com/v2');
    expect(urlWithoutCredentials('http://ops@127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(urlWithoutCredentials('https://api.example.com/')).toBe('https://api.example.com/');
  });

  it('map to readable file stems that never collide, and names are checked', () => {
    expect(stateFileStem('default@api.example.com/contacts')).toMatch(
      /^default_api.example.com_contacts\.[0-9a-f]{10}$/,
    );
    expect(stateFileStem('a/b')).not.toBe(stateFileStem('a_b'));
    expect(stateFileStem('../../etc/passwd')).not.toContain('/');
    expect(checkStateKey('  crm nightly ')).toBe('crm nightly');
    expect(() => checkStateKey('')).toThrow(/--state-key/);
    expect(() => checkStateKey('a\nb')).toThrow(/printable/);
  });
});

describe('ExportStateStore (conf, one file per key)', () => {
  it('writes a state in mode 0600 under exports/, reads it back, keys with dots stay flat', async () => {
    const store = await ExportStateStore.open(dir());
    const key = 'default@api.example.com/contacts';
    expect(store.read(key)).toBeUndefined();
    await store.write(state(key));
    expect(store.read(key)).toEqual(state(key));
    expect(statSync(store.pathOf(key)).mode & 0o777).toBe(0o600);
    const raw = JSON.parse(readFileSync(store.pathOf(key), 'utf8'));
    expect(raw.state.key).toBe(key); // dot-notation off: no nesting under "api" / "example"
  });

  it('lists every state by key, replaces atomically, and removes', async () => {
    const store = await ExportStateStore.open(dir());
    await store.write(state('b'));
    await store.write(state('a'));
    await store.write(state('a', { current: { ...state('a').current, rows: 99 } }));
    expect(store.list().map((s) => [s.key, s.current.rows])).toEqual([
      ['a', 99],
      ['b', 5],
    ]);
    expect(readdirSync(store.dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    expect(store.remove('a')).toBe(true);
    expect(store.remove('a')).toBe(false);
    expect(store.list().map((s) => s.key)).toEqual(['b']);
  });

  it('a damaged file is a clear error naming it, and reset still removes it', async () => {
    const store = await ExportStateStore.open(dir());
    writeFileSync(store.pathOf('x'), '{"state":{"version":1');
    expect(() => store.read('x')).toThrow(/cannot be used/);
    writeFileSync(store.pathOf('y'), JSON.stringify({ state: { version: 2 } }));
    expect(() => store.read('y')).toThrow(
      /export state file .* cannot be used: it is not a state this version of cnv writes \(version: /,
    );
    const problems: string[] = [];
    expect(store.list((err) => problems.push(err.message))).toEqual([]);
    expect(problems).toHaveLength(2);
    expect(() => store.list()).toThrow(/cannot be used/);
    expect(store.remove('x')).toBe(true);
  });

  it('a state of an earlier version (no account, no file identity, no cell rules) is refused naming what it lacks and how to start over', async () => {
    const store = await ExportStateStore.open(dir());
    const current = state('k').current;
    const earlier: Array<[string, unknown, string]> = [
      ['no account', { ...state('k'), account: undefined }, 'account'],
      [
        'a file without its identity',
        { ...state('k'), current: { ...current, output: { kind: 'file', path: '/tmp/x.csv', bytes: 10 } } },
        'current.output.file',
      ],
      [
        'CSV without its cell rules',
        { ...state('k'), current: { ...current, csv: { columns: ['id', '_extra'], omitted: [] } } },
        'current.csv.nullAs',
      ],
    ];
    for (const [what, saved, member] of earlier) {
      writeFileSync(store.pathOf('k'), JSON.stringify({ state: saved }));
      const err = (() => {
        try {
          store.read('k');
        } catch (e) {
          return e as { exitCode: number; code: string; message: string; hint: string };
        }
      })();
      expect(err, what).toMatchObject({ exitCode: 2, code: 'state_corrupt' });
      expect(err!.message, what).toBe(
        `the export state file ${store.pathOf('k')} cannot be used: it is not a state this version of cnv writes (${member}: Invalid input: expected string, received undefined)`,
      );
      expect(err!.hint, what).toBe(
        'inspect it; `cnv export state reset k` removes it, or run the export with --full to start over and replace it',
      );
    }
  });

  it('refuses a file that holds another key (copied by hand)', async () => {
    const store = await ExportStateStore.open(dir());
    await store.write(state('one'));
    writeFileSync(store.pathOf('two'), readFileSync(store.pathOf('one')));
    expect(() => store.read('two')).toThrow(/holds state "one"/);
  });
});

describe('run manifests', () => {
  const m = (runId: string): Manifest => ({
    runId,
    startedAt: '',
    finishedAt: null,
    status: 'running',
    rows: 0,
    pages: 0,
    bytes: 0,
    sha256: '',
    firstCursor: null,
    lastCursor: null,
    output: 'stdout',
    startOffset: null,
    moreRemains: true,
  });
  it('replace their own entry and keep the latest few', () => {
    let runs: Manifest[] = [];
    for (let i = 0; i < MANIFESTS_KEPT + 5; i++) runs = withManifest(runs, m(`r${i}`));
    runs = withManifest(runs, { ...m(`r${MANIFESTS_KEPT + 4}`), status: 'complete' });
    expect(runs).toHaveLength(MANIFESTS_KEPT);
    expect(runs[0].runId).toBe('r5');
    expect(runs.at(-1)).toMatchObject({ runId: `r${MANIFESTS_KEPT + 4}`, status: 'complete' });
  });
});
