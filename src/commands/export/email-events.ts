import type { Command } from 'commander';
import { EMAIL_EVENT_TYPES, type EmailEventType } from '../../api/exports.js';
import { caseInsensitiveChoice } from '../../cli/parse.js';
import type { CommandInput } from '../../cli/registry.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { FORMAT_HELP, addExportOptions, exportOptionsFrom } from '../../exports/options.js';
import { createReporter } from '../../exports/report.js';
import { runExport } from '../../exports/runner.js';
import type { CommandResult } from '../../io/render.js';

export function configure(cmd: Command): void {
  addExportOptions(
    cmd.option('--type <type>', `email event type, any case: ${EMAIL_EVENT_TYPES.join(', ')}`, caseInsensitiveChoice(EMAIL_EVENT_TYPES)),
    'email-events',
  ).addHelpText('after', `
Exports the email events of one type in occurredAt order; each type keeps its own state. CSV
columns: eventId, contactId, occurredAt, eventType, sourceType, sourceId, emailId, emailName,
sentEmailId, isBot, link, topicIds (JSON), bounceType, errorMessage, _extra.
${FORMAT_HELP}

Examples:
  $ cnv export email-events --type email_open --out opens.ndjson
  $ for t in EMAIL_SEND EMAIL_OPEN EMAIL_CLICK; do cnv export email-events --type $t --out "$t.csv" || exit; done`);
}

export async function run(ctx: Context, { opts }: CommandInput): Promise<CommandResult> {
  if (opts.type === undefined) throw new UsageError(`--type is required: one of ${EMAIL_EVENT_TYPES.join(', ')}`);
  const options = exportOptionsFrom(ctx, opts, 'email-events', { emailType: opts.type as EmailEventType });
  await runExport(ctx, options, await createReporter(ctx, `export email-events ${opts.type}`, options));
  return { kind: 'none' };
}
