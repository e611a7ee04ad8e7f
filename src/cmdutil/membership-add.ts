import type { Command } from 'commander';
import { addResult, type AddContactResult, type BatchItemResult } from '../endpoints/memberships.js';
import { MAX_BATCH_CONTACTS } from '../endpoints/endpoints.js';
import {
  batchAddColumns,
  batchAddSender,
  IDENTIFIER_COLUMNS,
  prepareIdentifierRow,
} from '../batch/contact-batch-add.js';
import { runFileBatch, type FileBatchSpec } from '../batch/file-run.js';
import {
  BATCH_GLOBALS,
  batchFlags,
  batchRunOptions,
  globalRunMode,
  checkBatchOptions,
  chunkSizeFlag,
  rejectBatchOptions,
  SUMMARY_JSON_FLAG,
} from './batch-options.js';
import { IDENTIFIER_FLAGS, identifierFrom } from './identifier.js';
import { commandOptions, textFlag, withBrief } from './flags.js';
import type { ContactIdentifier } from '../endpoints/identifiers.js';
import { uuidArgument } from './parse.js';
import type { CommandInput } from './contract.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { CommandResult } from '../output/render.js';
import { batchDepsOf } from './context-deps.js';
import type { JsonOutput } from './json-output.js';
import { fileRunDocument } from './run-documents.js';

// `audience add` and `campaigns add`: one contact by flags, or many from a file with --batch.

const BATCH_DEFAULTS = { concurrency: 8, maxChunkSize: MAX_BATCH_CONTACTS, columns: 'identifiers' as const };

/** What audience add and campaigns add print with --json and piped: the API's data, or with --batch the run summary. */
export const membershipAddOutput = (): JsonOutput => ({
  documents: [{ schema: addResult(), note: "(the API's data)" }, fileRunDocument('with --batch')],
});

/** The options of both commands: one contact by its identifier flags, or --batch FILE. */
export const membershipAddOptions = commandOptions(
  {
    ...IDENTIFIER_FLAGS,
    batch: withBrief(
      textFlag(
        '--batch <file>',
        'add every contact of a CSV, NDJSON or JSON file (- for stdin) through the batch endpoint',
      ),
      'add every contact of a CSV, NDJSON or JSON file',
    ),
    ...batchFlags(BATCH_DEFAULTS),
    ...SUMMARY_JSON_FLAG,
    ...chunkSizeFlag(BATCH_DEFAULTS.maxChunkSize),
  },
  {
    globals: BATCH_GLOBALS,
    check(opts) {
      if (opts.batch === undefined) return rejectBatchOptions(opts, '--batch');
      const flag = (['contactId', 'userId', 'email'] as const).find((k) => opts[k] !== undefined);
      if (flag)
        throw new UsageError(
          `--batch: the contacts come from the file; drop --${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        );
      checkBatchOptions(opts);
    },
  },
);

export interface MembershipTarget {
  /** "audience" or "campaign", for messages. */
  noun: string;
  /** The batch add request of these contacts (what a --dry-run shows). */
  batchRequest(targetId: string, contacts: ContactIdentifier[]): { method: string; path: string; body: unknown };
  /** The command, as a report names it: `audience add`, `campaigns add`. */
  command: string;
  single(
    http: HttpClient,
    targetId: string,
    contact: ContactIdentifier,
    signal: AbortSignal,
  ): Promise<AddContactResult>;
  batch(
    http: HttpClient,
    targetId: string,
    contacts: ContactIdentifier[],
    signal: AbortSignal,
  ): Promise<BatchItemResult[]>;
}

export function configureMembershipAdd(cmd: Command, argName: string, argHelp: string): Command {
  return cmd.argument(`<${argName}>`, argHelp, uuidArgument);
}

export async function runMembershipAdd(
  ctx: Context,
  { args, opts }: CommandInput<typeof membershipAddOptions>,
  target: MembershipTarget,
): Promise<CommandResult> {
  const targetId = args[0] as string;
  if (opts.batch === undefined) {
    const result = await target.single(
      await ctx.http(),
      targetId,
      identifierFrom(opts, undefined, (m) => ctx.warn(m)),
      ctx.signal,
    );
    if (!result.added) ctx.info(`note: the contact was already in this ${target.noun}; nothing changed`);
    return { kind: 'record', data: result };
  }
  return runFileBatch(batchDepsOf(ctx), {
    path: opts.batch,
    job: { command: target.command, target: targetId },
    options: batchRunOptions(opts, BATCH_DEFAULTS, globalRunMode(ctx.globals)),
    ...membershipRows(ctx, target, targetId),
  });
}

/**
 * The rows of a membership file (audience and campaigns add and sync): their columns, each row's
 * contact, the batch add request.
 */
export function membershipRows(
  ctx: Context,
  target: Pick<MembershipTarget, 'batchRequest' | 'batch'>,
  targetId: string,
): Pick<FileBatchSpec<ContactIdentifier>, 'columns' | 'prepare' | 'request' | 'send'> {
  return {
    columns: {
      rules: batchAddColumns(requestLine(target.batchRequest(targetId, []))),
      identifierColumns: IDENTIFIER_COLUMNS,
    },
    prepare: prepareIdentifierRow,
    request: (items) =>
      target.batchRequest(
        targetId,
        items.map((i) => i.payload),
      ),
    send: batchAddSender(
      () => ctx.http(),
      (http, contacts, signal) => target.batch(http, targetId, contacts, signal),
    ),
  };
}

/** Help text about --batch, shared by both commands. */
export function batchHelp(example: string): string {
  return `
With --batch FILE the contacts come from a file: CSV with a header (columns email, cnvContactId,
userId, as other tools spell them too, or --map 'Work Email=email'; other columns are not used,
and the run says so once), NDJSON or a JSON array of objects; - reads stdin. Rows are
checked locally first (a bad row is "invalid", never sent), then sent ${MAX_BATCH_CONTACTS} per request
(--chunk-size) with --concurrency requests in flight. Every row gets one result in --report
(added, failed, invalid, skipped); a summary goes to stderr. Exit 0 when every row was added,
6 when some failed or were invalid, 7 when the run could not finish, 8 when the report cannot
be written, 130/143 when interrupted; then --resume-from-report sends only what is missing
(the report file is resumable even after kill -9). --dry-run checks the file, prints each
request it would send (one JSON line each; --max-rows N looks at the first N rows) and sends nothing.
The batch endpoint must be enabled for the account (exit 4, export_not_enabled, otherwise).
See docs/batches.md.

Examples:
${example}`;
}

/** `POST /v2/audiences/…/contacts/batch`, as the column table names the endpoint. */
function requestLine(request: { method: string; path: string }): string {
  return `${request.method} ${request.path}`;
}
