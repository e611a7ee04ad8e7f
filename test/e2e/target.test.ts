import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/emulator.js';
import { runPipeline, type Catalog, type PipelineResult, type SingerCommand } from '../helpers/singer-pipeline.js';
import { groupAlive, startPipelineProcess } from '../helpers/singer-pipeline-process.js';
import { TAP_BIN } from '../helpers/tap.js';
import {
  contactDifferences,
  createBulkFields,
  eventLines,
  repeatedEvents,
  requestsOf,
  TARGET_BIN,
} from '../helpers/target-accounts.js';

// tap-cnv of one account into target-cnv of another, through the runner that keeps the state as
// `meltano run` does (test/helpers/singer-pipeline.ts): a sandbox copied from production with no
// `streams` in the target's config. The source has 100 contacts and 30 custom events (and 30
// email events, which the target reads and does not send); the tap pages 25 rows, so a run saves
// several states.
const CONTACTS = 100;
const EVENTS = 30;
/** Requests in flight at once: contacts and events are one request a row, 16 at a time. */
const IN_FLIGHT = 16;

let source: EmulatorFixture;
let copy: EmulatorFixture;
beforeAll(async () => {
  [source, copy] = await Promise.all([
    emulatorFixture({ seed: 'none', seedContacts: CONTACTS, seedEvents: EVENTS, rateLimit: 0 }),
    emulatorFixture({ seed: 'none', rateLimit: 0 }),
  ]);
  await Promise.all([createBulkFields(source), createBulkFields(copy)]);
});
afterAll(async () => {
  await source?.close();
  await copy?.close();
});

/** A pipeline of its own: its state file, the target's config directory (ledger, snapshot) and report. */
function pipeline() {
  const dir = tempConfigDir();
  return { stateFile: join(dir, 'state.json'), configDir: join(dir, 'cnv'), report: join(dir, 'report.ndjson') };
}
type Pipeline = ReturnType<typeof pipeline>;

const tapCommand = (): SingerCommand => ({
  argv: [process.execPath, TAP_BIN],
  env: cleanEnv({ CNV_CONFIG_DIR: tempConfigDir() }),
  config: { base_url: source.emulator.url, api_key: source.emulator.keys.full, page_size: 25 },
});
const targetCommand = (p: Pipeline): SingerCommand => ({
  argv: [process.execPath, TARGET_BIN],
  env: cleanEnv({ CNV_CONFIG_DIR: p.configDir }),
  config: { base_url: copy.emulator.url, api_key: copy.emulator.keys.full, report_path: p.report },
});

let discovered: Catalog | undefined;

/** The tap into the target once; both end with 0. */
async function run(p: Pipeline): Promise<PipelineResult> {
  const r = await runPipeline({
    tap: tapCommand(),
    target: targetCommand(p),
    stateFile: p.stateFile,
    catalog: discovered,
  });
  discovered ??= r.catalog;
  expect(r.target.exitCode, r.target.stderr).toBe(0);
  expect(r.tap.exitCode, r.tap.stderr).toBe(0);
  expect(r.invalidStateLines).toEqual([]);
  return r;
}

/** The copy equals the source: every contact (fields by key), every custom event once. */
function expectEqual(): void {
  expect(contactDifferences(source, copy, CONTACTS)).toEqual([]);
  expect(eventLines(copy)).toEqual(eventLines(source, EVENTS));
  expect(repeatedEvents(copy)).toEqual([]);
}

/** The copy emptied (its fields made again) and its request counts zeroed, for a pipeline that starts over. */
async function emptyCopy(): Promise<void> {
  await copy.admin('POST', '/_emulator/reset');
  await createBulkFields(copy);
  await copy.resetStats();
}

/** Resolves once the copy has answered `count` requests of `route` (polled). */
async function whenRequests(route: string, count: number): Promise<void> {
  const started = Date.now();
  while ((await requestsOf(copy, route)) < count && Date.now() - started < 20_000)
    await new Promise((r) => setTimeout(r, 10));
}

describe('tap-cnv | target-cnv: a copy of the account', () => {
  const p = pipeline();

  it("copies the contacts (fields by key) and each custom event once, printing only the tap's states", async () => {
    await copy.resetStats();
    const r = await run(p);
    expectEqual();
    expect(r.statesSaved).toBeGreaterThan(4);
    expect(r.target.stderr).toContain('stream email_events: not sent: the API records email events itself');
    expect(r.target.stderr).toMatch(
      /INFO METRIC: \{"type":"counter","metric":"record_count","value":100,"tags":\{"stream":"contacts"/,
    );
    expect(await requestsOf(copy, 'POST /v2/contacts')).toBe(CONTACTS);
    // Every state the target printed is one the tap wrote: the last is the runner's state now.
    const state = JSON.parse(r.state!) as { bookmarks: Record<string, { account: string }> };
    expect(state.bookmarks.contacts.account).toContain('@127.0.0.1');
  });

  it('a rerun from the saved state sends no write', async () => {
    await copy.resetStats();
    const r = await run(p);
    expect(r.tapArgs).toContain('--state');
    expect(await requestsOf(copy, 'POST /v2/contacts')).toBe(0);
    expect(await requestsOf(copy, 'POST /v2/events')).toBe(0);
    expectEqual();
  });

  it('1% of the contacts changed at the source sends 1%: one upsert', async () => {
    for (const i of [17]) {
      const res = await fetch(`${source.emulator.url}/v2/contacts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': source.emulator.keys.full },
        body: JSON.stringify({ email: `bulk.${i}@example.com`, fields: { city: `Changed ${i}` } }),
      });
      expect(res.status).toBe(200);
    }
    await copy.resetStats();
    await run(p);
    expect(await requestsOf(copy, 'POST /v2/contacts')).toBe(1);
    expect(await requestsOf(copy, 'POST /v2/events')).toBe(0);
    expectEqual();
  });
});

describe('kill -9 mid-run, then a rerun: the copy is exact, each event once, and the requests are at most the changes plus those in flight', () => {
  it('kill -9 of the target while it sends contacts', async () => {
    await emptyCopy();
    const p = pipeline();
    let target: ChildProcess | undefined;
    const killing = runPipeline({
      tap: tapCommand(),
      target: targetCommand(p),
      stateFile: p.stateFile,
      catalog: discovered,
      onStart: (procs) => (target = procs.target),
    });
    await whenRequests('POST /v2/contacts', 45);
    target!.kill('SIGKILL');
    const killed = await killing;
    expect(killed.target.signal).toBe('SIGKILL');
    expect(contactDifferences(source, copy, CONTACTS)).not.toEqual([]);
    await run(p);
    expectEqual();
    expect(await requestsOf(copy, 'POST /v2/contacts')).toBeLessThanOrEqual(CONTACTS + IN_FLIGHT);
    expect(await requestsOf(copy, 'POST /v2/events')).toBeLessThanOrEqual(EVENTS + IN_FLIGHT);
  });

  it('kill -9 of the runner with its tap and target while the target sends events', async () => {
    await emptyCopy();
    const p = pipeline();
    const runTmp = tempConfigDir();
    const { child, ended } = await startPipelineProcess(
      { tap: tapCommand(), target: targetCommand(p), stateFile: p.stateFile, catalog: discovered },
      { ...process.env, TMPDIR: runTmp },
    );
    await whenRequests('POST /v2/events', 10);
    process.kill(-child.pid!, 'SIGKILL');
    const end = await ended;
    expect(end.signal).toBe('SIGKILL');
    // The tap and the target died with it (their locks are then taken over).
    const gone = Date.now();
    while (groupAlive(child.pid!) && Date.now() - gone < 5000) await new Promise((r) => setTimeout(r, 20));
    rmSync(runTmp, { recursive: true, force: true });
    const saved = existsSync(p.stateFile) ? readFileSync(p.stateFile, 'utf8') : undefined;
    const r = await run(p);
    if (saved) expect(r.tapArgs).toContain('--state');
    expectEqual();
    expect(await requestsOf(copy, 'POST /v2/contacts')).toBeLessThanOrEqual(CONTACTS + IN_FLIGHT);
    expect(await requestsOf(copy, 'POST /v2/events')).toBeLessThanOrEqual(EVENTS + IN_FLIGHT);
  });
});
