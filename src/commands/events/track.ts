import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { TrackEventBody } from '../../endpoints/events.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { identifierFrom } from '../../cmdutil/identifier.js';
import { applySetPairs } from '../../cmdutil/body-flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { runTrackFile } from './track-file.js';
import { options, type TrackOptions } from './track-flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';
import { fileRunDocument, ledgerRunDocument } from '../../cmdutil/run-documents.js';

const NAMED_BODY_KEYS = new Set(['event', 'userId', 'email', 'clientEventId', 'data']);

export { options };

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: ENDPOINTS.trackEvent.answer.schema().extend({ clientEventId: z.string().describe('the one cnv sent') }),
      note: "(the API's data)",
    },
    fileRunDocument('with --file'),
    { ...ledgerRunDocument(), when: 'with --file and --id-column' },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
With --file, each row is a request body: CSV columns event, userId, email, clientEventId, data
(a JSON object) or data.<key>; any other column refuses the file (exit 2) unless --map names its
target (--map 'plan=data.plan'), --pass-column sends it as it is (the spec's unnamed members:
--pass-column occurredAt) or --ignore-column leaves it out. --event, --data and
--set apply to every row (a row's own values win). A row without clientEventId gets one
derived from the row's content and line number, so running the same file twice records each
event once (the second run reports "duplicate"). The report's identifier is the
clientEventId. Statuses: tracked, duplicate, failed, invalid, skipped. See docs/batches.md.

Examples:
  $ cnv events track --event plan_upgraded --user-id user-ada --data '{"plan":"pro"}'
  $ cnv events track --event webinar_attended --email ada@example.com --client-event-id crm-4711
  $ cnv events track --event signup --email new@example.com --set occurredAt=2026-01-02T03:04:05Z
  $ cnv events track --file backfill.ndjson --report events-report.csv`,
  );
}

/** The request body; a clientEventId is always present so a retried request is deduplicated. */
function trackBody(opts: TrackOptions, newId: () => string = randomUUID): TrackEventBody {
  const event = opts.event?.trim() ?? '';
  if (event === '') throw new UsageError('--event: the event name is required', undefined, 'invalid_request');
  const id = identifierFrom(opts, ['userId', 'email']);
  const clientEventId = opts.clientEventId ?? newId();
  if (clientEventId.trim() === '') throw new UsageError('--client-event-id: must not be empty');
  const body: TrackEventBody = { event, ...id, clientEventId };
  if (opts.data !== undefined) body.data = opts.data;
  applySetPairs(body, opts.set, NAMED_BODY_KEYS);
  return body;
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  if (opts.file !== undefined) return runTrackFile(ctx, { ...opts, file: opts.file });
  const body = trackBody(opts);
  const result = await (await ctx.http()).call(ENDPOINTS.trackEvent, { body, signal: ctx.signal });
  return { kind: 'record', data: { ...result, clientEventId: body.clientEventId } };
}
