import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../../cmdutil/contract.js';
import { noticesOf } from '../../cmdutil/context-deps.js';
import { commandOptions, switchFlag, textFlag } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { refuseJsonWhenStdoutIsData } from '../../cmdutil/stdout-data.js';
import { VERSION } from '../../cmdutil/version.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { writeWithBackpressure } from '../../output/write.js';
import type { StreamSchema, StreamSink } from '../../target/stream-sink.js';
import type { TargetConfig } from '../../target/target-config.js';
import { contactsSink, contactsView, type ContactsView } from './contacts-sink.js';
import { eventsSink } from './events-sink.js';
import { membershipSink } from './membership-sink.js';
import { recordsSink } from './records-sink.js';
import { targetConfigOf } from './target-deps.js';

export const options = commandOptions(
  {
    config: textFlag(
      '--config <file>',
      "the target's config (JSON): api_key, base_url or profile; streams (each stream's kind, map...), report_path, max_failed_rows, max_failed_ratio, max_removals, plan (docs/target.md)",
    ),
    about: switchFlag(
      '--about',
      'print what the target is: capabilities and the settings of its config (JSON; --format markdown: a README table) and exit',
    ),
  },
  {
    globals: ['json', 'query', 'format'],
    check(opts) {
      refuseJsonWhenStdoutIsData(opts, 'Singer states', "--about for the target's own JSON");
      if (opts.format !== undefined && (!opts.about || (opts.format !== 'json' && opts.format !== 'markdown')))
        throw new UsageError(`--format ${opts.format}: the target's own document is --about's, as json or markdown`);
      if (!opts.about && opts.config === undefined)
        throw new UsageError(
          '--config: required (a JSON file with api_key and base_url)',
          'see `cnv target --about` for the settings, docs/target.md for a config',
        );
    },
  },
);

/**
 * What it prints as JSON (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts): a
 * run's stdout is the tap's states, not a document, so --json and -q are refused.
 */
export const output = (): JsonOutput => ({
  documents: [
    {
      when: 'with --about',
      what: 'what the target is',
      schema: z.looseObject({
        name: z.string(),
        description: z.string(),
        version: z.string(),
        capabilities: z.array(z.string()),
        settings: z.looseObject({}),
      }),
    },
  ],
  note: "a run prints the tap's STATE values, each once every record before it is durable, one JSON document a line (docs/target.md); --json and -q are refused",
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
A Singer target into the account (also installed as the executable target-cnv, for Meltano's
\`executable: target-cnv\`): reads a tap's messages on stdin and sends each stream's records
through the engine of its kind, only what differs: contacts compared with the account (as
contacts sync), events once each (a clientEventId derived from the stream and the key), audience
members mirrored (removals only of members the stream added, after a complete pass), campaign
members added, custom-object records by digest. Streams named contacts, custom_events and
email_events (cnv's own tap) need no config: tap-cnv | target-cnv copies an account.
stdout holds only the tap's STATE values, each printed once every record before it has a durable
outcome in the ledger; per-row outcomes go to report_path, counts to stderr (METRIC lines, a
summary). Exit 0; 2 a config, message or property refused (nothing sent); 6 rows past
max_failed_rows/max_failed_ratio or removals held; 7 stopped (run again: the tap resumes from
the last state printed); 9 plan with changes; 143 SIGTERM (in-flight settled, covered state printed).
See docs/target.md.

Examples:
  $ cnv target --about --format markdown
  $ tap-cnv --config source.json | target-cnv --config sandbox.json
  $ meltano run tap-postgres target-cnv`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  if (opts.about) {
    const { targetAbout, targetAboutMarkdown } = await import('../../target/target-about.js');
    const about = targetAbout(VERSION);
    const text = opts.format === 'markdown' ? targetAboutMarkdown(about) : JSON.stringify(about, null, 2) + '\n';
    await writeWithBackpressure(ctx.io.stdout, text);
    return { kind: 'none' };
  }
  const config = await targetConfigOf(ctx, opts.config!);
  // Every engine's client is the config's (its retries and timeout), sharing the account's rate.
  const choice = {
    ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    ...(config.timeoutMs === undefined ? {} : { timeout: config.timeoutMs }),
  };
  const tctx: Context = { ...ctx, http: (more) => ctx.http({ ...choice, ...more }) };
  const view = contactsView(tctx);
  const { runTarget } = await import('../../target/target-run.js');
  const exitCode = await runTarget(
    { stdin: ctx.io.stdin, stdout: ctx.io.stdout, notices: noticesOf(ctx), signal: ctx.signal, clock: ctx.clock },
    { config, sinkOf: (schema) => sinkOf(tctx, schema, config, view) },
  );
  return { kind: 'none', exitCode };
}

/** The sink of a stream's kind (src/target/stream-sink.ts). */
function sinkOf(
  ctx: Context,
  schema: StreamSchema,
  config: TargetConfig,
  view: () => Promise<ContactsView>,
): Promise<StreamSink<object>> {
  switch (schema.config.kind) {
    case 'contacts':
      return opaque(contactsSink(ctx, schema, view));
    case 'events':
      return opaque(eventsSink(ctx, schema));
    case 'records':
      return opaque(recordsSink(ctx, schema));
    default:
      return opaque(membershipSink(ctx, schema, config.maxRemovals));
  }
}

/** The run hands a sink's payloads only back to that sink: it need not know their type. */
const opaque = <P extends object>(sink: Promise<StreamSink<P>>) => sink as unknown as Promise<StreamSink<object>>;
