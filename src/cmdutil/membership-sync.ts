import { z } from 'zod';
import type { ItemOutcome } from '../batch/types.js';
import type { Context } from '../context.js';
import { ENDPOINTS, MAX_BATCH_CONTACTS } from '../endpoints/endpoints.js';
import type { ContactIdentifier } from '../endpoints/identifiers.js';
import { UsageError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { requestOf } from '../http/endpoint.js';
import { integer } from '../lib/option-values.js';
import { keyColumnReader } from '../ledger/key-column.js';
import { ledgerJob } from '../ledger/ledger-job.js';
import { LedgerPlan } from '../ledger/ledger-plan.js';
import { runLedgerJob } from '../ledger/ledger-run.js';
import type { CommandResult } from '../output/render.js';
import { BATCH_GLOBALS, checkBatchOptions, globalRunMode } from './batch-options.js';
import { outputOf } from './context-deps.js';
import { membershipRows, type MembershipTarget } from './membership-add.js';
import type { CommandInput } from './contract.js';
import { commandOptions, numberFlag, switchFlag, textFlag } from './flags.js';
import type { JsonOutput } from './json-output.js';
import { EXIT_CODE_FLAG, ledgerFileFlags, ledgerJobDeps, ledgerRunOptions } from './ledger-flags.js';
import { ledgerRunDocument } from './run-documents.js';

// `audience sync` and `campaigns sync`: a file of contacts mirrored into an audience (adds and
// removals of what the job added) or a campaign (adds only: the API cannot remove), through the
// ledger (docs/ledger.md).

const DEFAULTS = { concurrency: 8, maxChunkSize: MAX_BATCH_CONTACTS, columns: 'identifiers' as const };

const FLAGS = {
  ...ledgerFileFlags(DEFAULTS),
  keyColumn: textFlag('--key-column <column>', 'the column keying a member (default: identifier)'),
  plan: switchFlag('--plan', 'send nothing: list the changes and their time'),
  ...EXIT_CODE_FLAG,
};

/** The flags of `campaigns sync`. */
export const campaignSyncOptions = commandOptions(FLAGS, { globals: BATCH_GLOBALS, check: checkSync });

/** The flags of `audience sync`: those of `campaigns sync`, and --max-removals. */
export const audienceSyncOptions = commandOptions(
  {
    ...FLAGS,
    maxRemovals: numberFlag('--max-removals <n>', 'hold removals past N (default 10%, at least 100)', integer(0)),
  },
  { globals: BATCH_GLOBALS, check: checkSync },
);

function checkSync(opts: { file?: string; plan?: boolean; report?: string; summaryJson?: string }): void {
  if (opts.file === undefined)
    throw new UsageError('--file: required (the members, one a row)', 'e.g. --file members.csv --plan', 'missing_file');
  for (const [flag, value] of [
    ['--report -', opts.report],
    ['--summary-json -', opts.summaryJson],
  ] as const)
    if (opts.plan && value === '-')
      throw new UsageError(`${flag}: not with --plan, which prints the plan on stdout`, 'write it to a file');
  checkBatchOptions(opts);
}

/** What both print: the run summary (with its `ledger` member), or with --plan the plan's lines. */
export const membershipSyncOutput = (removes: boolean): JsonOutput => {
  const counts = {
    add: z.number(),
    update: z.number(),
    remove: z.number(),
    held: z.number(),
    unchanged: z.number(),
    invalid: z.number(),
    requests: z.number(),
    seconds: z.number().describe('at 195 requests/s'),
  };
  const line = z.union([
    z.strictObject({ type: z.enum(['add', 'update']), line: z.number(), key: z.string(), contact: z.string() }),
    ...(removes
      ? [z.strictObject({ type: z.literal('remove'), key: z.string(), cnvContactId: z.string(), held: z.boolean() })]
      : []),
    z.strictObject({ type: z.literal('summary'), ...counts }),
  ]);
  return {
    documents: [
      ledgerRunDocument(),
      { when: 'with --plan', lines: true, what: 'a line per change, then a summary:', schema: line },
    ],
  };
};

/** The audience or campaign a sync writes to. */
interface SyncTarget extends Pick<MembershipTarget, 'batchRequest' | 'batch'> {
  /** The command, as the report and the ledger name it: `audience sync`, `campaigns sync`. */
  command: string;
  /** An audience's removal of one contact; none for a campaign (the API cannot remove). */
  remove?: {
    send(http: HttpClient, targetId: string, cnvContactId: string, signal: AbortSignal): Promise<{ removed: boolean }>;
    request(targetId: string, cnvContactId: string): { method: string; path: string; body: unknown };
  };
}

type SyncInput = CommandInput<typeof audienceSyncOptions> | CommandInput<typeof campaignSyncOptions>;

/** Runs `audience sync` or `campaigns sync`. */
export async function runMembershipSync(
  ctx: Context,
  { args, opts }: SyncInput,
  target: SyncTarget,
): Promise<CommandResult> {
  const targetId = args[0] as string;
  const plan = opts.plan === true;
  const mode = plan ? 'plan' : globalRunMode(ctx.globals);
  const keyColumn = opts.keyColumn?.trim() || undefined;
  const job = ledgerJob(await ctx.credentials(), target.command, targetId, keyColumn ?? 'identifier');
  const options = ledgerRunOptions(opts, DEFAULTS, mode);
  const readKey = keyColumn === undefined ? undefined : keyColumnReader('--key-column', keyColumn);
  const remove = target.remove;
  return runLedgerJob(
    ledgerJobDeps(ctx, plan),
    {
      path: opts.file!,
      job: { command: target.command, target: targetId },
      options,
      ...membershipRows(ctx, target, targetId),
    },
    {
      job,
      keyColumn: keyColumn === undefined ? undefined : { flag: '--key-column', column: keyColumn },
      track: { key: (row, p) => (readKey ? readKey(row) : identifierKey(p.payload)), keepReplaced: true },
      removals: remove && {
        maxRemovals: 'maxRemovals' in opts ? opts.maxRemovals : undefined,
        ...syncRemovals(ctx, remove, targetId, options.concurrency),
      },
      exitCode: opts.exitCode === true,
      plan: plan ? await LedgerPlan.open(outputOf(ctx)) : undefined,
    },
  );
}

/** How a sync removes a member of `targetId`: one request a contact, `removed` (also when it was a member no longer). */
export function syncRemovals(
  ctx: Context,
  remove: NonNullable<SyncTarget['remove']>,
  targetId: string,
  concurrency: number,
): {
  concurrency: number;
  request(id: string): { method: string; path: string; body: unknown };
  remove(id: string, signal: AbortSignal): Promise<ItemOutcome>;
} {
  return {
    concurrency,
    request: (id) => remove.request(targetId, id),
    remove: async (id, signal): Promise<ItemOutcome> => {
      const result = await remove.send(await ctx.http(), targetId, id, signal);
      return { status: 'removed', id, ...(result.removed ? {} : { message: 'it was no longer a member' }) };
    },
  };
}

/** `audience sync`'s audience: batch adds, and removals one contact a request. */
export const AUDIENCE_SYNC: SyncTarget = {
  command: 'audience sync',
  batchRequest: (audienceId, contacts) =>
    requestOf(ENDPOINTS.batchAddToAudience, { params: { audienceId }, body: { contacts } }),
  batch: (http, audienceId, contacts, signal) =>
    http.call(ENDPOINTS.batchAddToAudience, { params: { audienceId }, body: { contacts }, signal }),
  remove: {
    send: (http, audienceId, cnvContactId, signal) =>
      http.call(ENDPOINTS.removeFromAudience, { params: { audienceId }, body: { cnvContactId }, signal }),
    request: (audienceId, cnvContactId) =>
      requestOf(ENDPOINTS.removeFromAudience, { params: { audienceId }, body: { cnvContactId } }),
  },
};

/** `campaigns sync`'s campaign: batch adds only (the API cannot remove from a campaign). */
export const CAMPAIGN_SYNC: SyncTarget = {
  command: 'campaigns sync',
  batchRequest: (campaignId, contacts) =>
    requestOf(ENDPOINTS.batchAddToCampaign, { params: { campaignId }, body: { contacts } }),
  batch: (http, campaignId, contacts, signal) =>
    http.call(ENDPOINTS.batchAddToCampaign, { params: { campaignId }, body: { contacts }, signal }),
};

/** A row's key when no --key-column names one: the identifier it sends (an email in any case is one contact's). */
export function identifierKey(id: ContactIdentifier): string {
  if (id.cnvContactId !== undefined) return `cnvContactId:${id.cnvContactId.toLowerCase()}`;
  if (id.userId !== undefined) return `userId:${id.userId}`;
  return `email:${String(id.email).trim().toLowerCase()}`;
}
