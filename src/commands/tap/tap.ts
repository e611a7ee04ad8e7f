import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import { commandOptions, flag, switchFlag, textFlag, withBrief } from '../../cmdutil/flags.js';
import { aboutOutput, checkPluginOptions, writeAbout } from '../../cmdutil/singer-plugin.js';
import { refuseJsonWhenStdoutIsData } from '../../cmdutil/stdout-data.js';
import { VERSION } from '../../cmdutil/version.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { tapDepsOf } from './tap-deps.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions(
  {
    config: withBrief(
      textFlag(
        '--config <file>',
        "the tap's config (JSON): api_key, base_url, start_date, page_size, max_retries, timeout_ms, or profile; stream_maps, flattening_enabled (docs/singer.md)",
      ),
      "the tap's config (JSON; docs/singer.md)",
    ),
    state: withBrief(
      textFlag('--state <file>', 'the state to resume from: the value of the last STATE message a run wrote'),
      'the state to resume from',
    ),
    catalog: withBrief(
      textFlag(
        '--catalog <file>',
        'the catalog that selects the streams (as --discover wrote it, or Meltano made from it)',
      ),
      'the catalog that selects the streams',
    ),
    properties: textFlag('--properties <file>', 'the same as --catalog (the older Singer name)'),
    discover: withBrief(
      switchFlag('--discover', 'print the catalog of the account (its streams and their schemas) and exit'),
      "print the account's catalog and exit",
    ),
    about: withBrief(
      switchFlag(
        '--about',
        'print what the tap is: capabilities and the settings of its config (JSON; --format markdown: a README table) and exit',
      ),
      'print what the tap is and exit',
    ),
    test: withBrief(
      flag(
        '--test [mode]',
        'a connection test: one request of one row per selected stream (SCHEMA and RECORD, no STATE), exit 0 when the account answers; --test schema: the SCHEMAs only',
        z.union([z.literal(true), z.enum(['all', 'schema'])]).optional(),
        { parse: (value: string) => testMode(value) },
      ),
      'a connection test (--test schema: SCHEMAs only)',
    ),
  },
  {
    globals: ['json', 'query', 'format'],
    check(opts) {
      refuseJsonWhenStdoutIsData(opts, 'Singer messages', "--about for the tap's own JSON");
      if (opts.catalog !== undefined && opts.properties !== undefined)
        throw new UsageError('--catalog and --properties: give one (they are the same option)');
      if ([opts.discover, opts.about, opts.test].filter(Boolean).length > 1)
        throw new UsageError('--discover, --about and --test: give one');
      checkPluginOptions(opts, { noun: 'tap', docs: 'docs/singer.md' });
    },
  },
);

/**
 * What it prints as JSON (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts): a
 * sync's stdout is Singer messages, not a document, so --json and -q are refused.
 */
export const output = (): JsonOutput => ({
  documents: [
    aboutOutput('what the tap is'),
    {
      when: 'with --discover',
      what: 'the catalog',
      schema: z.strictObject({
        streams: z.array(
          z.looseObject({
            tap_stream_id: z.string(),
            stream: z.string(),
            schema: z.looseObject({}),
            key_properties: z.array(z.string()),
            metadata: z.array(z.unknown()),
          }),
        ),
      }),
    },
  ],
  note: 'a sync prints Singer messages (SCHEMA, RECORD, STATE, ACTIVATE_VERSION), one JSON document a line (docs/singer.md); --json and -q are refused',
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
A Singer tap of the account (also installed as the executable tap-cnv, for Meltano's
\`executable: tap-cnv\`). Streams: contacts (key id, replication key updatedAt), custom_events
and email_events (key eventId, replication key occurredAt; the nine email types in one
stream, each its own cursor), INCREMENTAL; fields (key key) and campaigns (key id), FULL_TABLE.
stdout holds only Singer messages: SCHEMA, then each page's RECORDs and a STATE after them, a
final STATE always; logs, a summary line per stream and METRIC lines go to stderr. The key and
URL come from --config only (or the cnv profile it names), never from CNV_* variables; the key
appears in no message, catalog or state. A run without --state is a full pass of contacts,
ended by ACTIVATE_VERSION: a target with hard_delete drops deleted contacts. The config may
also hold stream_maps and flattening_enabled (the Meltano SDK's common forms). See docs/singer.md.

Examples:
  $ cnv tap --about
  $ tap-cnv --about --format markdown
  $ tap-cnv --config config.json --test
  $ tap-cnv --config config.json --discover > catalog.json
  $ tap-cnv --config config.json --catalog catalog.json > messages.ndjson
  $ tap-cnv --config config.json --catalog catalog.json --state state.json | target-jsonl`,
  );
}

/** --test's value: `all` (the default) or `schema`. */
function testMode(value: string): 'all' | 'schema' {
  const mode = value.trim().toLowerCase();
  if (mode !== 'all' && mode !== 'schema') throw new UsageError(`--test ${value}: all or schema`);
  return mode;
}

export async function run(ctx: Context, input: CommandInput<typeof options>): Promise<CommandResult> {
  const { opts } = input;
  if (opts.about) {
    const { aboutDocument } = await import('../../tap/about.js');
    return writeAbout(ctx, aboutDocument(VERSION), opts.format);
  }
  const { streamError } = await import('../../tap/tap-errors.js');
  try {
    await runTap(ctx, input);
  } catch (err) {
    throw streamError(err, undefined, ctx.signal);
  }
  return { kind: 'none' };
}

async function runTap(ctx: Context, { opts }: CommandInput<typeof options>): Promise<void> {
  const deps = await tapDepsOf(ctx, opts.config!);
  if (opts.discover) {
    const { discover } = await import('../../tap/discover.js');
    await discover(deps.tap);
    return;
  }
  const [{ sync, writeSchemas }, { readSelection }, { readTapState }, { STREAM_NAMES }] = await Promise.all([
    import('../../tap/tap-sync.js'),
    import('../../tap/catalog.js'),
    import('../../tap/bookmarks.js'),
    import('../../tap/stream-table.js'),
  ]);
  const catalog = opts.catalog ?? opts.properties;
  const flag = opts.catalog !== undefined ? '--catalog' : '--properties';
  const warn = (m: string) => ctx.warn(m);
  const { streams: selected, excluded } =
    catalog === undefined
      ? { streams: new Set(STREAM_NAMES), excluded: {} }
      : await readSelection(flag, catalog, warn, ctx.signal);
  if (selected.size === 0)
    ctx.warn(
      `${flag} ${catalog}: selects no stream: nothing to sync (Meltano: \`meltano select tap-cnv contacts '*'\`)`,
    );
  const { bookmarks, rewind } =
    opts.state === undefined
      ? { bookmarks: {}, rewind: {} }
      : await readTapState(opts.state, deps.tap.account, warn, ctx.signal);
  const runOptions = {
    selected,
    excluded,
    bookmarks,
    rewind,
    startDate: deps.config.startDate,
    pageSize: deps.config.pageSize,
    maps: deps.config.maps,
    flatten: deps.config.flatten,
  };
  if (opts.test === 'schema') await writeSchemas(deps.tap, runOptions);
  else await sync(deps.tap, { ...runOptions, test: opts.test !== undefined });
}
