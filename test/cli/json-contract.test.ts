import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderJsonTable, withJsonTable } from '../../src/cli/reference.js';
import { COMMANDS, isGroup } from '../../src/cli/registry.js';
import type { Entry, LeafEntry } from '../../src/cmdutil/contract.js';
import type { JsonDocument } from '../../src/cmdutil/json-output.js';
import {
  FIXTURE_AUDIENCES,
  FIXTURE_CAMPAIGNS,
  FIXTURE_CONTACTS,
  FIXTURE_CUSTOM_OBJECT,
  FIXTURE_FORMS,
  FIXTURE_WORKFLOWS,
} from '../../src/emulator/seed/fixtures.js';
import { ledgerJob } from '../../src/ledger/ledger-job.js';
import { cnvInProcess } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

// One JSON document per command, the same piped and with --json on a terminal: each command
// that prints data is run both ways here and its real output validated against the schema its
// module declares (`output`, src/cmdutil/json-output.ts), the one its help and docs/output.md
// are derived from. Every document a command declares has a case here.

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
beforeAll(async () => {
  fx = await emulatorFixture();
  writeFileSync(join(fx.configDir, 'records.csv'), 'clientDedupKey,planName,seats\nsub-json-1,Pro,3\n');
  writeFileSync(join(fx.configDir, 'contacts.csv'), 'email,city\njson.file@example.com,Oslo\n');
  writeFileSync(join(fx.configDir, 'events.ndjson'), '{"event":"json_file","email":"ada@example.com"}\n');
  writeFileSync(join(fx.configDir, 'members.csv'), 'email\nada@example.com\n');
  writeFileSync(join(fx.configDir, 'sync.csv'), `email\n${FIXTURE_CONTACTS.ada.email}\n`);
  writeFileSync(
    join(fx.configDir, 'orders.csv'),
    `order_id,event,email\no-1,json_file,${FIXTURE_CONTACTS.ada.email}\n`,
  );
  writeFileSync(
    join(fx.configDir, 'ledgers.csv'),
    `json_a,json_b,json_c,event,email\na,b,c,json_ledger,${FIXTURE_CONTACTS.ada.email}\n`,
  );
});
afterAll(() => fx.close());

/** A ledger job of this file's emulator and config directory (docs/ledger.md): events tracked with --id-column `column`. */
const eventsJob = (column: string) =>
  ledgerJob({ baseUrl: fx.emulator.url, apiKey: fx.emulator.keys.full }, 'events track', undefined, column).key;

const str = z.string();
const campaign = z.looseObject({ id: str, name: str });
interface Case {
  /** The command's path in the registry. */
  command: string;
  /** The arguments, or one set per run (a create cannot be repeated as is). */
  args: string[] | ((run: number) => string[]);
  /** Which of the command's declared documents the run prints (its index in `output().documents`; 0 when not given). */
  doc?: number;
  /** What this run's answer must hold besides the declared schema (the emulator's data is known). */
  also?: z.ZodType;
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

const out = (name: string) => ['--no-state', '--out', `OUT/${name}`];

const relate = (n: number) => [
  'fields',
  'relate',
  '--source',
  `CONTACT:jsonRelate${n}:Json relate ${n}`,
  '--target',
  `COMPANY:jsonRelateBack${n}:Json relate back ${n}`,
];

const CASES: Case[] = [
  { command: 'contacts upsert', args: ['contacts', 'upsert', '--email', 'json.contract@example.com'] },
  { command: 'contacts get', args: ['contacts', 'get', '--email', FIXTURE_CONTACTS.grace.email], read: true },
  // A file in sync: the plan is its summary line alone (NDJSON: a change line per row that would be sent comes first).
  {
    command: 'contacts sync',
    doc: 1,
    args: ['contacts', 'sync', '--file', 'SYNC', '--plan'],
    also: z.looseObject({ type: z.literal('summary'), unchanged: z.literal(1) }),
    read: true,
  },
  {
    command: 'events track',
    args: ['events', 'track', '--event', 'json_contract', '--email', FIXTURE_CONTACTS.ada.email],
  },
  {
    command: 'workflows trigger',
    args: ['workflows', 'trigger', FIXTURE_WORKFLOWS.reengage.id, '--email', FIXTURE_CONTACTS.ada.email],
  },
  {
    command: 'audience add',
    args: ['audience', 'add', FIXTURE_AUDIENCES.newsletter.id, '--email', FIXTURE_CONTACTS.ada.email],
  },
  {
    command: 'audience remove',
    args: ['audience', 'remove', FIXTURE_AUDIENCES.newsletter.id, '--email', 'nobody.json@example.com'],
  },
  {
    command: 'campaigns list',
    args: ['campaigns', 'list', '--limit', '3'],
    also: z.array(campaign).length(3),
    read: true,
  },
  {
    command: 'campaigns get',
    args: ['campaigns', 'get', FIXTURE_CAMPAIGNS.springWebinar.id],
    also: z.looseObject({ description: str.nullable(), type: z.looseObject({ statuses: z.array(z.unknown()) }) }),
    read: true,
  },
  {
    command: 'campaigns add',
    args: ['campaigns', 'add', FIXTURE_CAMPAIGNS.springWebinar.id, '--email', FIXTURE_CONTACTS.grace.email],
  },
  { command: 'forms get', args: ['forms', 'get', FIXTURE_FORMS.contactUs.id], read: true },
  {
    command: 'fields create',
    args: (n) => [
      'fields',
      'create',
      '--label',
      `Json contract ${n}`,
      '--object-type',
      'contact',
      '--data-type',
      'string',
    ],
  },
  {
    command: 'fields list',
    args: ['fields', 'list', '--object-type', 'contact'],
    also: z.array(z.unknown()).min(1),
    read: true,
  },
  { command: 'fields relate', args: relate },
  {
    command: 'records upsert',
    doc: 1,
    args: ['records', 'upsert', FIXTURE_CUSTOM_OBJECT.id, '--file', 'RECORDS', '--check'],
    read: true,
  },
  // A first sync's plan: the contact to add, then the summary line.
  {
    command: 'audience sync',
    doc: 1,
    args: ['audience', 'sync', FIXTURE_AUDIENCES.vip.id, '--file', 'MEMBERS', '--plan'],
    also: z.looseObject({ type: z.literal('summary'), remove: z.literal(0) }),
    read: true,
  },
  {
    command: 'campaigns sync',
    doc: 1,
    args: ['campaigns', 'sync', FIXTURE_CAMPAIGNS.springWebinar.id, '--file', 'MEMBERS', '--plan'],
    also: z.looseObject({ type: z.literal('summary'), remove: z.literal(0) }),
    read: true,
  },
  // The ledgers made before each run (below): events tracked with --id-column json_a, json_b, json_c.
  { command: 'ledger list', args: ['ledger', 'list'], also: z.array(z.unknown()).min(1), read: true },
  { command: 'ledger show', args: () => ['ledger', 'show', eventsJob('json_a')], read: true },
  { command: 'ledger show', doc: 1, args: () => ['ledger', 'show', eventsJob('json_a'), '--entries'], read: true },
  { command: 'ledger reset', args: (run) => ['ledger', 'reset', eventsJob(run === 1 ? 'json_b' : 'json_c'), '--yes'] },
  { command: 'export state list', args: ['export', 'state', 'list'], also: z.array(z.unknown()).min(1), read: true },
  { command: 'export state show', args: ['export', 'state', 'show', 'json-contract'], read: true },
  // A --defer-commit run committed in the set-up below: committing it again is a no-op (exit 0).
  {
    command: 'export state commit',
    args: ['export', 'state', 'commit', 'json-contract-deferred', '--run', 'jc-1'],
    read: true,
  },
  // Two states made in the set-up below, one for each run (an unknown key is exit 5).
  {
    command: 'export state reset',
    args: (run: number) => ['export', 'state', 'reset', `json-contract-reset-${run}`, '--yes'],
    read: false,
  },
  { command: 'config list', args: ['config', 'list'], read: true },
  { command: 'config show', args: ['config', 'show'], read: true },
  { command: 'doctor', args: ['doctor'], also: z.array(z.unknown()).min(1), read: true },
  // Bare `cnv version` prints the version alone, piped too (like `cnv --version`): JSON is asked for.
  { command: 'version', args: ['version', '-o', 'json'], read: true },
  {
    command: 'api',
    args: ['api', 'GET', '/v2/campaigns', '-f', 'limit=1'],
    also: z.looseObject({
      data: z.looseObject({ campaigns: z.array(campaign).length(1) }),
      pagination: z.object({ nextCursor: str.nullable() }),
    }),
    read: true,
  },
  {
    command: 'api',
    doc: 1,
    args: ['api', 'GET', '/v2/campaigns', '-f', 'limit=2', '--paginate'],
    also: campaign,
    read: true,
  },
  {
    command: 'api',
    doc: 2,
    args: ['api', 'GET', '/v2/campaigns', '-f', 'limit=2', '--paginate', '--slurp'],
    also: z.array(campaign).min(3),
    read: true,
  },
  // The commands that write no data to stdout: their result document, with --json or -q.
  { command: 'contacts upsert', doc: 1, args: ['contacts', 'upsert', '--file', 'CONFIG/contacts.csv'], document: true },
  {
    command: 'contacts sync',
    args: ['contacts', 'sync', '--file', 'CONFIG/sync.csv'],
    also: z.looseObject({
      sync: z.looseObject({ unchanged: z.literal(1), snapshot: z.looseObject({ full: z.boolean() }) }),
    }),
    document: true,
  },
  { command: 'events track', doc: 1, args: ['events', 'track', '--file', 'CONFIG/events.ndjson'], document: true },
  {
    command: 'events track',
    doc: 2,
    args: ['events', 'track', '--file', 'CONFIG/orders.csv', '--id-column', 'order_id'],
    also: z.looseObject({ ledger: z.looseObject({ job: z.string() }) }),
    document: true,
  },
  {
    command: 'audience sync',
    args: ['audience', 'sync', FIXTURE_AUDIENCES.followUp.id, '--file', 'CONFIG/members.csv'],
    document: true,
  },
  {
    command: 'campaigns sync',
    args: ['campaigns', 'sync', FIXTURE_CAMPAIGNS.springWebinar.id, '--file', 'CONFIG/members.csv'],
    document: true,
  },
  { command: 'records sync', args: ['records', 'sync', FIXTURE_CUSTOM_OBJECT.id, '--file', 'RECORDS'], document: true },
  {
    command: 'audience add',
    doc: 1,
    args: ['audience', 'add', FIXTURE_AUDIENCES.followUp.id, '--batch', 'CONFIG/members.csv'],
    document: true,
  },
  {
    command: 'campaigns add',
    doc: 1,
    args: ['campaigns', 'add', FIXTURE_CAMPAIGNS.springWebinar.id, '--batch', 'CONFIG/members.csv'],
    document: true,
  },
  {
    command: 'records upsert',
    args: ['records', 'upsert', FIXTURE_CUSTOM_OBJECT.id, '--file', 'RECORDS'],
    document: true,
  },
  { command: 'export contacts', args: ['export', 'contacts', ...out('c.ndjson')], document: true },
  {
    command: 'export custom-events',
    args: ['export', 'custom-events', '--since', '2000-01-01', ...out('ce.csv')],
    also: z.looseObject({ window: z.looseObject({ since: str }) }),
    document: true,
  },
  {
    command: 'export email-events',
    args: ['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', ...out('ee.ndjson')],
    also: z.looseObject({ types: z.record(str, z.unknown()) }),
    document: true,
  },
  {
    command: 'export email-events',
    doc: 1,
    args: ['export', 'email-events', '--type', 'EMAIL_OPEN,EMAIL_CLICK', '--out-dir', 'OUT/dir'],
    document: true,
  },
  {
    command: 'config set-key',
    // A key of no account: saved unchecked (the check is test/e2e/operator-ux.test.ts's).
    args: ['--profile', 'jc-key', 'config', 'set-key', '--no-verify'],
    input: 'sk_live_jc_0123456789abcdef',
    document: true,
  },
  {
    command: 'config set-url',
    args: ['--profile', 'jc-url', 'config', 'set-url', 'https://api.example.com'],
    document: true,
  },
  { command: 'config use', args: ['config', 'use', 'jc-url'], document: true },
  {
    command: 'config remove',
    args: (run) => ['config', 'remove', `jc-gone-${run}`, '--yes'],
    before: async (run) =>
      void (await cnvInProcess(['--profile', `jc-gone-${run}`, 'config', 'set-url', 'https://api.example.com'], {
        env: fx.env,
      })),
    document: true,
  },
];

/** Every leaf of the registry, by its path. */
function leaves(entries: Entry[], prefix: string[] = []): Array<[string, LeafEntry]> {
  return entries.flatMap((e): Array<[string, LeafEntry]> =>
    isGroup(e) ? leaves(e.children, [...prefix, e.name]) : [[[...prefix, e.name].join(' '), e]],
  );
}
const LEAVES = new Map(leaves(COMMANDS));

/** The document a command's module declares (`output`), by its index. */
async function declared(command: string, doc = 0): Promise<JsonDocument> {
  const entry = LEAVES.get(command);
  if (!entry) throw new Error(`no command ${command}`);
  const found = (await entry.load()).output().documents[doc];
  if (!found) throw new Error(`${command} declares no document ${doc}`);
  return found;
}

/** stdout checked against the declared document (each line, for NDJSON) and what the case adds. */
async function expectDeclared(
  stdout: string,
  { command, doc, also }: Pick<Case, 'command' | 'doc' | 'also'>,
): Promise<void> {
  const declaration = await declared(command, doc);
  const texts = declaration.lines ? stdout.split('\n').filter((line) => line !== '') : [stdout];
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) {
    const value: unknown = JSON.parse(text);
    const parsed = declaration.schema.safeParse(value);
    expect(parsed.success, `${command}: ${parsed.error?.message}`).toBe(true);
    if (also && !declaration.lines) {
      const more = also.safeParse(value);
      expect(more.success, more.error?.message).toBe(true);
    }
  }
  if (also && declaration.lines) {
    const last = also.safeParse(JSON.parse(texts.at(-1)!));
    const first = also.safeParse(JSON.parse(texts[0]));
    expect(last.success || first.success, last.error?.message).toBe(true);
  }
}

describe('one JSON contract per command', () => {
  it("every document a command declares has a case here (the emulator's below), and every case names a declared one", async () => {
    const wanted: string[] = [];
    for (const [command, entry] of LEAVES)
      (await entry.load()).output().documents.forEach((_, i) => wanted.push(`${command}#${i}`));
    const covered = new Set([
      ...CASES.map((c) => `${c.command}#${c.doc ?? 0}`),
      'emulator#0',
      'tap#0',
      'tap#1',
      'target#0',
    ]);
    expect([...covered].sort()).toEqual(wanted.sort());
  });

  it("docs/output.md's table is the commands' declarations (run `npm run docs`)", async () => {
    const onDisk = readFileSync(resolve(import.meta.dirname, '../../docs/output.md'), 'utf8');
    expect(onDisk).toBe(withJsonTable(onDisk, await renderJsonTable()));
  });

  it.each(CASES.filter((c) => c.document))(
    '$command $args.1 $args.2: prints its document only when JSON is asked for',
    async ({ command, doc, also, args, input, before }) => {
      const outDir = mkdtempSync(join(fx.configDir, 'out-'));
      const argv = (run: number) =>
        (typeof args === 'function' ? args(run) : args).map((a) =>
          a
            .replace(/^RECORDS$/, join(fx.configDir, 'records.csv'))
            .replace(/^CONFIG\//, `${fx.configDir}/`)
            .replace(/^OUT\//, `${outDir}/${run}-`),
        );
      await before?.(0);
      const bare = await cnvInProcess(argv(0), { env: fx.env, input });
      expect(bare.exitCode, bare.stderr).toBe(0);
      expect(bare.stdout).toBe('');
      await before?.(1);
      const piped = await cnvInProcess([...argv(1), '--json'], { env: fx.env, input });
      await before?.(2);
      const queried = await cnvInProcess([...argv(2), '-q', '@', '--quiet'], {
        env: fx.env,
        input,
        stdoutIsTTY: true,
        columns: 80,
      });
      for (const res of [piped, queried]) {
        expect(res.exitCode, res.stderr).toBe(0);
        await expectDeclared(res.stdout, { command, doc, also });
      }
    },
  );

  it('emulator: --json prints {url, keys} on one line once it listens, -q selects from it', async () => {
    const stop = new AbortController();
    const ready = join(fx.configDir, 'emulator.env');
    const running = cnvInProcess(['emulator', '--port', '0', '--ready-file', ready, '-q', 'keys.full'], {
      env: fx.env,
      signal: stop.signal,
    });
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const res = await running;
    expect(res.stdout).toMatch(/^sk_live_demo_\w+\n$/);
    const stopJson = new AbortController();
    const readyJson = join(fx.configDir, 'emulator-json.env');
    const json = cnvInProcess(['emulator', '--port', '0', '--ready-file', readyJson, '--json'], {
      env: fx.env,
      signal: stopJson.signal,
    });
    while (!existsSync(readyJson)) await new Promise((r) => setTimeout(r, 20));
    stopJson.abort();
    const printed = (await json).stdout;
    expect(printed.split('\n')).toHaveLength(2);
    await expectDeclared(printed, { command: 'emulator' });
  });

  it("tap: --about and --discover print their declared documents; a sync's stdout holds Singer messages, so --json and -q are refused", async () => {
    const about = await cnvInProcess(['tap', '--about'], { env: fx.env });
    expect(about.exitCode, about.stderr).toBe(0);
    await expectDeclared(about.stdout, { command: 'tap', doc: 0 });
    const config = join(fx.configDir, 'tap-config.json');
    writeFileSync(config, JSON.stringify({ base_url: fx.env.CNV_BASE_URL, api_key: fx.env.CNV_API_KEY }));
    const catalog = await cnvInProcess(['tap', '--config', config, '--discover'], { env: fx.env });
    expect(catalog.exitCode, catalog.stderr).toBe(0);
    await expectDeclared(catalog.stdout, { command: 'tap', doc: 1 });
    for (const flag of [['--json'], ['-q', 'name']]) {
      const refused = await cnvInProcess(['tap', '--about', ...flag], { env: fx.env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('stdout carries Singer messages');
    }
  });

  it("target: --about prints its declared document; a run's stdout holds the tap's states, so --json and -q are refused", async () => {
    const about = await cnvInProcess(['target', '--about'], { env: fx.env });
    expect(about.exitCode, about.stderr).toBe(0);
    await expectDeclared(about.stdout, { command: 'target', doc: 0 });
    for (const flag of [['--json'], ['-q', 'name']]) {
      const refused = await cnvInProcess(['target', '--about', ...flag], { env: fx.env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('stdout carries Singer states');
    }
  });

  it.each(CASES.filter((c) => !c.document))(
    '$command $args.1 $args.2: piped and --json on a terminal print the declared shape',
    async ({ command, doc, also, args, read }) => {
      const argv = (run: number) =>
        (typeof args === 'function' ? args(run) : args).map((a) =>
          a === 'RECORDS'
            ? join(fx.configDir, 'records.csv')
            : a === 'SYNC'
              ? join(fx.configDir, 'sync.csv')
              : a === 'MEMBERS'
                ? join(fx.configDir, 'members.csv')
                : a,
        );
      if (argv(1)[0] === 'ledger')
        for (const column of ['json_a', 'json_b', 'json_c']) {
          const file = join(fx.configDir, 'ledgers.csv');
          const made = await cnvInProcess(
            ['events', 'track', '--file', file, '--id-column', column, '--ignore-unknown-columns', '--quiet'],
            { env: fx.env },
          );
          expect(made.exitCode, made.stderr).toBe(0);
        }
      if (argv(1)[0] === 'export')
        await cnvInProcess(
          [
            'export',
            'contacts',
            '--state-key',
            'json-contract',
            '--out',
            join(fx.configDir, 'json-contract.csv'),
            '--quiet',
          ],
          { env: fx.env },
        );
      if (argv(1)[2] === 'reset') {
        for (const run of [1, 2]) {
          const made = await cnvInProcess(
            [
              'export',
              'contacts',
              '--state-key',
              `json-contract-reset-${run}`,
              '--out',
              join(fx.configDir, `reset-${run}.csv`),
              '--quiet',
            ],
            { env: fx.env },
          );
          expect(made.exitCode, made.stderr).toBe(0);
        }
      }
      if (argv(1)[2] === 'commit') {
        expect(
          (
            await cnvInProcess(
              [
                'export',
                'contacts',
                '--state-key',
                'json-contract-deferred',
                '--defer-commit',
                '--run',
                'jc-1',
                '--quiet',
              ],
              { env: fx.env },
            )
          ).exitCode,
        ).toBe(0);
        expect(
          (
            await cnvInProcess(['export', 'state', 'commit', 'json-contract-deferred', '--run', 'jc-1'], {
              env: fx.env,
            })
          ).exitCode,
        ).toBe(0);
      }
      const piped = await cnvInProcess(argv(1), { env: fx.env });
      const flagged = await cnvInProcess([...argv(2), '--json'], { env: fx.env, stdoutIsTTY: true, columns: 80 });
      for (const res of [piped, flagged]) {
        expect(res.exitCode, res.stderr).toBe(0);
        await expectDeclared(res.stdout, { command, doc, also });
      }
      if (read) expect(flagged.stdout).toBe(piped.stdout);
    },
  );
});
