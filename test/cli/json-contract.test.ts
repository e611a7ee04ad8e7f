import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS, isGroup } from '../../src/cli/registry.js';
import type { Entry } from '../../src/cmdutil/contract.js';
import {
  FIXTURE_AUDIENCES, FIXTURE_CAMPAIGNS, FIXTURE_CONTACTS, FIXTURE_CUSTOM_OBJECT, FIXTURE_FORMS, FIXTURE_WORKFLOWS,
} from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

// One JSON document per command, the same piped and with --json on a terminal: each command
// that prints data is run both ways here and checked against the shape its help documents.

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
beforeAll(async () => {
  fx = await emulatorFixture();
  writeFileSync(join(fx.configDir, 'records.csv'), 'clientDedupKey,planName,seats\nsub-json-1,Pro,3\n');
  writeFileSync(join(fx.configDir, 'contacts.csv'), 'email,city\njson.file@example.com,Oslo\n');
  writeFileSync(join(fx.configDir, 'events.ndjson'), '{"event":"json_file","email":"ada@example.com"}\n');
  writeFileSync(join(fx.configDir, 'members.csv'), 'email\nada@example.com\n');
  writeFileSync(join(fx.configDir, 'sync.csv'), `email\n${FIXTURE_CONTACTS.ada.email}\n`);
});
afterAll(() => fx.close());

const str = z.string();
const campaign = z.looseObject({ id: str, name: str, type: z.looseObject({ id: str, name: str }), memberCount: z.number(), createdAt: str, updatedAt: str });
const field = z.looseObject({ key: str, label: str, objectType: str, dataType: str });
const contact = z.looseObject({ cnvContactId: str, email: str.nullable(), subscriptionStatus: str, fields: z.record(str, z.unknown()), createdAt: str, updatedAt: str });
const membership = z.strictObject({ added: z.boolean(), cnvContactId: str });
const reference = z.looseObject({ key: str, objectType: str });

interface Case {
  /** The command's path in the registry. */
  command: string;
  /** The arguments, or one set per run (a create cannot be repeated as is). */
  args: string[] | ((run: number) => string[]);
  schema: z.ZodType;
  /** A read: the two runs print the same bytes. */
  read?: boolean;
  /**
   * The command writes no data to stdout (a file run, an export into --out, a config write): it
   * prints nothing without --json, its document with --json (piped) and with -q @ (on a terminal).
   */
  document?: boolean;
  /** stdin of each run. */
  input?: string;
  /** Made before each run (a profile to remove). */
  before?: (run: number) => Promise<void>;
}

const fileRun = z.looseObject({
  status: z.enum(['complete', 'partial', 'failed', 'interrupted']), rows: z.number(), succeeded: z.number(), failed: z.number(), invalid: z.number(), skipped: z.number(),
  byStatus: z.record(str, z.number()), doneInEarlierRun: z.number(), elapsedMs: z.number(), rowsPerSecond: z.number(), dryRun: z.boolean(), report: str.nullable(),
  stopped: str.nullable(), exitCode: z.number(), columns: z.array(z.looseObject({ column: str, sentAs: str.nullable(), note: str })),
});
const exportRun = z.looseObject({
  command: str, status: z.enum(['complete', 'stopped', 'failed', 'interrupted']), rows: z.number(), skipped: z.number(), pages: z.number(), bytes: z.number(), elapsedMs: z.number(),
  stateKey: str.nullable(), runId: str.nullable(), moreRemains: z.boolean(), output: str, pending: z.boolean(), cutBytes: z.number(),
});
const typeOutcome = z.looseObject({ status: z.enum(['complete', 'stopped', 'failed']), rows: z.number(), pages: z.number() });
const out = (name: string) => ['--no-state', '--out', `OUT/${name}`];
const profileDocument = { profile: str, default: z.boolean(), configFile: str };

const relate = (n: number) => [
  'fields', 'relate', '--source', `CONTACT:jsonRelate${n}:Json relate ${n}`, '--target', `COMPANY:jsonRelateBack${n}:Json relate back ${n}`,
];

const CASES: Case[] = [
  { command: 'contacts upsert', args: ['contacts', 'upsert', '--email', 'json.contract@example.com'], schema: z.strictObject({ cnvContactId: str, contactCreated: z.boolean() }) },
  { command: 'contacts get', args: ['contacts', 'get', '--email', FIXTURE_CONTACTS.grace.email], schema: contact, read: true },
  // A file in sync: the plan is its summary line alone (NDJSON: a change line per row that would be sent comes first).
  {
    command: 'contacts sync',
    args: ['contacts', 'sync', '--file', 'SYNC', '--plan'],
    schema: z.strictObject({ type: z.literal('summary'), create: z.number(), update: z.number(), unchanged: z.literal(1), invalid: z.number(), unsure: z.number(), unsureReasons: z.record(str, z.number()) }),
    read: true,
  },
  {
    command: 'events track',
    args: ['events', 'track', '--event', 'json_contract', '--email', FIXTURE_CONTACTS.ada.email],
    schema: z.strictObject({ cnvEventId: str, cnvContactId: str, duplicate: z.boolean().optional(), clientEventId: str }),
  },
  { command: 'workflows trigger', args: ['workflows', 'trigger', FIXTURE_WORKFLOWS.reengage.id, '--email', FIXTURE_CONTACTS.ada.email], schema: z.strictObject({ workflowId: str, triggered: z.boolean() }) },
  { command: 'audience add', args: ['audience', 'add', FIXTURE_AUDIENCES.newsletter.id, '--email', FIXTURE_CONTACTS.ada.email], schema: membership },
  {
    command: 'audience remove',
    args: ['audience', 'remove', FIXTURE_AUDIENCES.newsletter.id, '--email', 'nobody.json@example.com'],
    schema: z.strictObject({ removed: z.boolean(), cnvContactId: str.nullable().optional(), outcome: z.enum(['removed', 'not_a_member', 'no_such_contact']) }),
  },
  { command: 'campaigns list', args: ['campaigns', 'list', '--limit', '3'], schema: z.array(campaign).length(3), read: true },
  { command: 'campaigns get', args: ['campaigns', 'get', FIXTURE_CAMPAIGNS.springWebinar.id], schema: campaign.extend({ description: str.nullable(), type: z.looseObject({ statuses: z.array(z.looseObject({ id: str, name: str })) }) }), read: true },
  { command: 'campaigns add', args: ['campaigns', 'add', FIXTURE_CAMPAIGNS.springWebinar.id, '--email', FIXTURE_CONTACTS.grace.email], schema: membership },
  { command: 'forms get', args: ['forms', 'get', FIXTURE_FORMS.contactUs.id], schema: z.looseObject({ id: str, name: str, fields: z.array(z.looseObject({ fieldId: str, name: str, type: str })) }), read: true },
  { command: 'fields create', args: (n) => ['fields', 'create', '--label', `Json contract ${n}`, '--object-type', 'contact', '--data-type', 'string'], schema: field },
  { command: 'fields list', args: ['fields', 'list', '--object-type', 'contact'], schema: z.array(field).min(1), read: true },
  { command: 'fields relate', args: relate, schema: z.looseObject({ sourceField: reference, relatedFields: z.array(reference) }) },
  {
    command: 'records upsert',
    args: ['records', 'upsert', FIXTURE_CUSTOM_OBJECT.id, '--file', 'RECORDS', '--check'],
    schema: z.looseObject({ ok: z.boolean(), rows: z.number(), validRows: z.number(), invalidRows: z.number(), columns: z.array(z.unknown()), problems: z.array(z.unknown()) }),
    read: true,
  },
  {
    command: 'export state list',
    args: ['export', 'state', 'list'],
    schema: z.array(z.strictObject({
      key: str, kind: z.enum(['contacts', 'custom-events', 'email-events']), emailType: str.nullable(), format: z.enum(['csv', 'ndjson']), rows: z.number(), pages: z.number(),
      cursorAt: z.iso.datetime().nullable(),
      fullAt: z.iso.datetime().nullable(),
      output: z.union([z.strictObject({ kind: z.literal('file'), path: str, bytes: z.number() }), z.strictObject({ kind: z.literal('stdout') })]),
      lastRun: z.strictObject({ runId: str, status: str, startedAt: z.iso.datetime(), finishedAt: z.iso.datetime().nullable(), rows: z.number() }).nullable(),
      pending: z.strictObject({ runId: str, rows: z.number(), savedAt: z.iso.datetime() }).nullable(),
    })).min(1),
    read: true,
  },
  { command: 'export state show', args: ['export', 'state', 'show', 'json-contract'], schema: z.looseObject({ key: str, kind: str, profile: str, stateFile: str, cursor: str.nullable(), rows: z.number(), pages: z.number() }), read: true },
  // A --defer-commit run committed in the set-up below: committing it again is a no-op (exit 0).
  { command: 'export state commit', args: ['export', 'state', 'commit', 'json-contract-deferred', '--run', 'jc-1'], schema: z.strictObject({ key: str, run: str, committed: z.boolean(), rows: z.number(), added: z.number().optional(), cursor: str.nullable() }), read: true },
  // Two states made in the set-up below, one for each run (an unknown key is exit 5).
  { command: 'export state reset', args: (run: number) => ['export', 'state', 'reset', `json-contract-reset-${run}`, '--yes'], schema: z.strictObject({ key: str, removed: z.boolean() }), read: false },
  { command: 'config list', args: ['config', 'list'], schema: z.array(z.strictObject({ profile: str, current: z.boolean(), baseUrl: str.nullable(), apiKey: str.nullable() })), read: true },
  { command: 'config show', args: ['config', 'show'], schema: z.strictObject({ profile: str, configFile: str, apiKey: str.nullable(), apiKeySource: str.nullable(), baseUrl: str.nullable(), baseUrlSource: str.nullable() }), read: true },
  { command: 'doctor', args: ['doctor'], schema: z.array(z.strictObject({ check: str, status: z.enum(['ok', 'inferred', 'unchecked', 'warn', 'fail']), detail: str })).min(1), read: true },
  // Bare `cnv version` prints the version alone, piped too (like `cnv --version`): JSON is asked for.
  { command: 'version', args: ['version', '-o', 'json'], schema: z.strictObject({ version: str, node: str, platform: str }), read: true },
  { command: 'api', args: ['api', 'GET', '/v2/campaigns', '-f', 'limit=1'], schema: z.looseObject({ data: z.looseObject({ campaigns: z.array(campaign) }), pagination: z.object({ nextCursor: str.nullable() }) }), read: true },
  // The commands that write no data to stdout: their result document, with --json or -q.
  { command: 'contacts upsert', args: ['contacts', 'upsert', '--file', 'CONFIG/contacts.csv'], schema: fileRun, document: true },
  { command: 'contacts sync', args: ['contacts', 'sync', '--file', 'CONFIG/sync.csv'], schema: fileRun.extend({ sync: z.looseObject({ create: z.number(), update: z.number(), unchanged: z.number(), snapshot: z.looseObject({ contacts: z.number(), full: z.boolean() }) }) }), document: true },
  { command: 'events track', args: ['events', 'track', '--file', 'CONFIG/events.ndjson'], schema: fileRun, document: true },
  { command: 'audience add', args: ['audience', 'add', FIXTURE_AUDIENCES.followUp.id, '--batch', 'CONFIG/members.csv'], schema: fileRun, document: true },
  { command: 'campaigns add', args: ['campaigns', 'add', FIXTURE_CAMPAIGNS.springWebinar.id, '--batch', 'CONFIG/members.csv'], schema: fileRun, document: true },
  { command: 'records upsert', args: ['records', 'upsert', FIXTURE_CUSTOM_OBJECT.id, '--file', 'RECORDS'], schema: fileRun, document: true },
  { command: 'export contacts', args: ['export', 'contacts', ...out('c.ndjson')], schema: exportRun, document: true },
  { command: 'export custom-events', args: ['export', 'custom-events', '--since', '2000-01-01', ...out('ce.csv')], schema: exportRun.extend({ window: z.looseObject({ since: str }) }), document: true },
  { command: 'export email-events', args: ['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', ...out('ee.ndjson')], schema: exportRun.extend({ types: z.record(str, typeOutcome) }), document: true },
  {
    command: 'export email-events',
    args: ['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', '--out-dir', 'OUT/dir'],
    schema: z.strictObject({ command: str, status: z.enum(['complete', 'failed', 'interrupted']), rows: z.number(), pages: z.number(), elapsedMs: z.number(), outDir: str, types: z.record(str, typeOutcome.extend({ output: str, stateKey: str.nullable() })) }),
    document: true,
  },
  { command: 'config set-key', args: ['--profile', 'jc-key', 'config', 'set-key'], input: 'sk_live_jc_0123456789abcdef', schema: z.strictObject({ ...profileDocument, apiKey: str, baseUrl: str.nullable() }), document: true },
  { command: 'config set-url', args: ['--profile', 'jc-url', 'config', 'set-url', 'https://api.example.com'], schema: z.strictObject({ ...profileDocument, baseUrl: str }), document: true },
  { command: 'config use', args: ['config', 'use', 'jc-url'], schema: z.strictObject(profileDocument), document: true },
  {
    command: 'config remove',
    args: (run) => ['config', 'remove', `jc-gone-${run}`],
    before: async (run) => void (await cnvInProcess(['--profile', `jc-gone-${run}`, 'config', 'set-url', 'https://api.example.com'], { env: fx.env })),
    schema: z.strictObject({ profile: str, removed: z.literal(true), default: str.nullable(), profiles: z.array(str), configFile: str }),
    document: true,
  },
];

/** Every leaf of the registry (each documents its JSON contract), by its path. */
function documented(entries: Entry[], prefix: string[] = []): string[] {
  return entries.flatMap((e) => (isGroup(e) ? documented(e.children, [...prefix, e.name]) : [[...prefix, e.name].join(' ')]));
}

describe('one JSON contract per command', () => {
  it('every command has a schema case here (the emulator\'s below)', () => {
    expect([...new Set([...CASES.map((c) => c.command), 'emulator'])].sort()).toEqual(documented(COMMANDS).sort());
  });

  it.each(CASES.filter((c) => c.document))('$command $args.1 $args.2: prints its document only when JSON is asked for', async ({ args, schema, input, before }) => {
    const outDir = mkdtempSync(join(fx.configDir, 'out-'));
    const argv = (run: number) => (typeof args === 'function' ? args(run) : args).map((a) => a.replace(/^RECORDS$/, join(fx.configDir, 'records.csv')).replace(/^CONFIG\//, `${fx.configDir}/`).replace(/^OUT\//, `${outDir}/${run}-`));
    await before?.(0);
    const bare = await cnvInProcess(argv(0), { env: fx.env, input });
    expect(bare.exitCode, bare.stderr).toBe(0);
    expect(bare.stdout).toBe('');
    await before?.(1);
    const piped = await cnvInProcess([...argv(1), '--json'], { env: fx.env, input });
    await before?.(2);
    const queried = await cnvInProcess([...argv(2), '-q', '@', '--quiet'], { env: fx.env, input, stdoutIsTTY: true, columns: 80 });
    for (const res of [piped, queried]) {
      expect(res.exitCode, res.stderr).toBe(0);
      const parsed = schema.safeParse(JSON.parse(res.stdout));
      expect(parsed.success, parsed.error?.message).toBe(true);
    }
  });

  it('emulator: --json prints {url, keys} on one line once it listens, -q selects from it', async () => {
    const stop = new AbortController();
    const ready = join(fx.configDir, 'emulator.env');
    const running = cnvInProcess(['emulator', '--port', '0', '--ready-file', ready, '-q', 'keys.full'], { env: fx.env, signal: stop.signal });
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const res = await running;
    expect(res.stdout).toMatch(/^sk_live_demo_\w+\n$/);
    const stopJson = new AbortController();
    const readyJson = join(fx.configDir, 'emulator-json.env');
    const json = cnvInProcess(['emulator', '--port', '0', '--ready-file', readyJson, '--json'], { env: fx.env, signal: stopJson.signal });
    while (!existsSync(readyJson)) await new Promise((r) => setTimeout(r, 20));
    stopJson.abort();
    const printed = (await json).stdout;
    expect(printed.split('\n')).toHaveLength(2);
    expect(z.strictObject({ url: str, keys: z.strictObject({ full: str, basic: str, limited: str }) }).safeParse(JSON.parse(printed)).success).toBe(true);
  });

  it.each(CASES.filter((c) => !c.document))('$command: piped and --json on a terminal print the documented shape', async ({ args, schema, read }) => {
    const argv = (run: number) => (typeof args === 'function' ? args(run) : args).map((a) => (a === 'RECORDS' ? join(fx.configDir, 'records.csv') : a === 'SYNC' ? join(fx.configDir, 'sync.csv') : a));
    if (argv(1)[0] === 'export') await cnvInProcess(['export', 'contacts', '--state-key', 'json-contract', '--out', join(fx.configDir, 'json-contract.csv'), '--quiet'], { env: fx.env });
    if (argv(1)[2] === 'reset') {
      for (const run of [1, 2]) {
        const made = await cnvInProcess(['export', 'contacts', '--state-key', `json-contract-reset-${run}`, '--out', join(fx.configDir, `reset-${run}.csv`), '--quiet'], { env: fx.env });
        expect(made.exitCode, made.stderr).toBe(0);
      }
    }
    if (argv(1)[2] === 'commit') {
      expect((await cnvInProcess(['export', 'contacts', '--state-key', 'json-contract-deferred', '--defer-commit', '--run', 'jc-1', '--quiet'], { env: fx.env })).exitCode).toBe(0);
      expect((await cnvInProcess(['export', 'state', 'commit', 'json-contract-deferred', '--run', 'jc-1'], { env: fx.env })).exitCode).toBe(0);
    }
    const piped = await cnvInProcess(argv(1), { env: fx.env });
    const flagged = await cnvInProcess([...argv(2), '--json'], { env: fx.env, stdoutIsTTY: true, columns: 80 });
    for (const res of [piped, flagged]) {
      expect(res.exitCode, res.stderr).toBe(0);
      const parsed = schema.safeParse(JSON.parse(res.stdout));
      expect(parsed.success, parsed.error?.message).toBe(true);
    }
    if (read) expect(flagged.stdout).toBe(piped.stdout);
  });
});
