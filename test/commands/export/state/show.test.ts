import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportStateStore } from '../../../../src/exporter/state-store.js';
import { cnvInProcess } from '../../../helpers/cli.js';
import { answerContactsPage, exportContact, MOCK_API, useFakeApi } from '../../../helpers/fake-api.js';

// In-process runs against undici's MockAgent: the server behaviours the emulator does not show.
const BASE = MOCK_API;
const KEY = 'sk_live_mock@api.test/contacts';
const api = useFakeApi({ contactFields: true });

const contact = exportContact;
const page = (cursor: string | undefined, rows: unknown[], next: string | null, times = 1) =>
  answerContactsPage(api.agent, cursor, rows, next, times);
const run = (args: string[], opts: { signal?: AbortSignal } = {}) =>
  cnvInProcess(['export', 'contacts', ...args], { env: api.env, dispatcher: api.dispatcher, ...opts });
const fileKey = (out: string) => `${KEY}:${out}`;
const outFile = () => join(mkdtempSync(join(api.dir, 'out-')), 'contacts.ndjson');

describe('export state: nothing secret is persisted or shown', () => {
  it('a key the server echoes in a failed page is redacted in runs[].error and in `state show`', async () => {
    page(undefined, [contact('a')], 'c1');
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/exports/contacts', method: 'POST' })
      .reply(503, { error: { code: 'unavailable', message: `backend refused key ${api.env.CNV_API_KEY}` } })
      .times(4);
    const out = outFile();
    const res = await run(['--out', out]);
    expect(res.exitCode).toBe(7);
    const store = await ExportStateStore.open(api.dir);
    const text = readFileSync(store.pathOf(fileKey(out)), 'utf8');
    expect(text).toContain('sk_live_mock_****');
    expect(text).not.toContain(api.env.CNV_API_KEY);
    const show = await cnvInProcess(['export', 'state', 'show', fileKey(out), '--json'], { env: api.env });
    expect(JSON.parse(show.stdout).runs.at(-1).error).toMatch(/backend refused key sk_live_mock_\*\*\*\*/);
    expect(show.stdout).not.toContain(api.env.CNV_API_KEY);
  });

  it('a user and password in the base URL are refused before any state is written', async () => {
    page(undefined, [contact('a')], null);
    const res = await cnvInProcess(['export', 'contacts', '--out', outFile(), '--state-key', 'creds'], {
      env: { ...api.env, CNV_BASE_URL: 'https://ops:hunter2@api.test' },
      dispatcher: api.dispatcher,
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/^error: credentials_in_url: /);
    expect(res.stderr).not.toContain('hunter2');
    const store = await ExportStateStore.open(api.dir);
    expect(store.read('creds')).toBeUndefined();
  });

  it('a state file edited by hand (a key in an error, a password in baseUrl) is shown redacted', async () => {
    page(undefined, [contact('a')], null);
    const out = outFile();
    expect((await run(['--out', out])).exitCode).toBe(0);
    const store = await ExportStateStore.open(api.dir);
    const saved = JSON.parse(readFileSync(store.pathOf(fileKey(out)), 'utf8'));
    saved.state.baseUrl = 'https://ops:hunter2@api.test';
    saved.state.runs[0].error = `echo ${api.env.CNV_API_KEY}`;
    writeFileSync(store.pathOf(fileKey(out)), JSON.stringify(saved));
    const show = await cnvInProcess(['export', 'state', 'show', fileKey(out), '--json'], {
      env: { ...api.env, CNV_API_KEY: undefined as unknown as string },
    });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(/hunter2|sk_live_mock_0123456789/);
    expect(JSON.parse(show.stdout)).toMatchObject({ baseUrl: 'https://api.test' });
  });
});
