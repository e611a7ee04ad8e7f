import { resumeCommand } from './resume-command.js';
import { accountIdentity } from '../config/account-identity.js';
import { configDir, configDirWhere } from '../config/paths.js';
import type { Context } from '../context.js';
import type { BatchDeps } from '../batch/batch-deps.js';
import type { ExportDeps, ReporterDeps, StateDir } from '../exporter/export-deps.js';
import { asksForDocument, documentText, type DocumentForm } from '../output/document.js';
import type { Output } from '../output/format.js';
import { pagerCommand } from '../output/pager.js';
import type { Notices, ProgressDisplay } from '../output/notices.js';
import type { FieldCacheDeps } from '../records/field-cache.js';
import type { RecordsDeps } from '../records/records-file.js';

// The narrow inputs of the layers below the commands, made from a command's Context. A command
// hands exporter/, batch/, records/, sync/ and output/ these, never the Context itself.

/** The context's warn/info/tell/redact (what --quiet and the key in force decide, at each call). */
export function noticesOf(ctx: Context): Notices {
  return {
    warn: (message) => ctx.warn(message),
    info: (message) => ctx.info(message),
    tell: (line) => ctx.tell(line),
    redact: (text) => ctx.redact(text),
  };
}

/** stdout and the output flags in force, for output/render.ts and output/list-writer.ts. */
export function outputOf(ctx: Context): Output {
  const { json, query, color } = ctx.globals;
  // markdown is the tap's --about only (refused elsewhere before a command runs): no output format of a result.
  const format = ctx.globals.format === 'markdown' ? undefined : ctx.globals.format;
  // The pager takes the process's own terminal: only the launcher's IO offers it (never a test's fake streams).
  const command = ctx.io.stdoutIsTTY && ctx.io.pagerAllowed && ctx.globals.pager ? pagerCommand(ctx.env) : undefined;
  const pager = command === undefined ? undefined : { command, warn: (message: string) => ctx.warn(message) };
  return { stdout: ctx.io.stdout, stdoutIsTTY: ctx.io.stdoutIsTTY, format, json, query, color, pager };
}

/**
 * How a command that writes no data to stdout prints its result document (the --summary-json
 * one) there: undefined unless JSON is asked for (--json, -q; -o json|ndjson unless -o is the
 * command's file format, as an export's is). Redacted like every summary.
 */
function documentPrinterOf(
  ctx: Context,
  how: DocumentForm = {},
): ((document: Record<string, unknown>) => void) | undefined {
  const out = outputOf(ctx);
  if (!asksForDocument(out, how.formatIsFile)) return undefined;
  return (document) => {
    ctx.io.stdout.write(ctx.redact(documentText(out, document, (message) => ctx.warn(message), how)));
  };
}

/** Where a spinner draws, when progress display is allowed. */
function progressOf(ctx: Context): ProgressDisplay | undefined {
  return ctx.showProgress() ? { stream: ctx.io.stderr, color: ctx.globals.color } : undefined;
}

/** The config directory in force (states, locks, caches). */
export function stateDirOf(ctx: Context): StateDir {
  return { path: configDir(ctx.env), where: configDirWhere(ctx.env) };
}

export function exportDepsOf(ctx: Context): ExportDeps {
  return {
    http: () => ctx.http(),
    account: () => ctx.credentials(),
    clock: ctx.clock,
    signal: ctx.signal,
    stateDir: stateDirOf(ctx),
    notices: noticesOf(ctx),
    stdout: ctx.io.stdout,
    onDispose: (fn) => ctx.onDispose(fn),
    holdHeap: ctx.tuning && (() => ctx.tuning!.holdHeap()),
  };
}

export function reporterDepsOf(ctx: Context): ReporterDeps {
  return {
    clock: ctx.clock,
    signal: ctx.signal,
    notices: noticesOf(ctx),
    stdout: ctx.io.stdout,
    quiet: ctx.globals.quiet,
    // An export's -o is its file's format; its dry run prints the request instead.
    printDocument: ctx.globals.dryRun ? undefined : documentPrinterOf(ctx, { formatIsFile: true }),
    progress: progressOf(ctx),
    onDispose: (fn) => ctx.onDispose(fn),
  };
}

export function batchDepsOf(ctx: Context): BatchDeps {
  return {
    io: ctx.io,
    clock: ctx.clock,
    signal: ctx.signal,
    notices: noticesOf(ctx),
    quiet: ctx.globals.quiet,
    printDocument: documentPrinterOf(ctx),
    progress: progressOf(ctx),
    prepareHttp: () => ctx.prepareHttp(),
    account: async () => {
      const credentials = await ctx.credentials().catch(() => undefined);
      return credentials && accountIdentity(credentials.baseUrl, credentials.apiKey);
    },
    resumeCommand: ctx.argv && ((report) => resumeCommand(ctx.argv ?? [], report)),
  };
}

export function fieldCacheDepsOf(ctx: Context): FieldCacheDeps {
  return {
    account: () => ctx.credentials(),
    http: () => ctx.http(),
    configDir: configDir(ctx.env),
    clock: ctx.clock,
    signal: ctx.signal,
    notices: noticesOf(ctx),
    verbose: ctx.globals.verbose,
  };
}

/** What a records file run takes (records upsert, records sync). */
export function recordsDepsOf(ctx: Context): RecordsDeps {
  return { http: () => ctx.http(), signal: ctx.signal, warn: (message) => ctx.warn(message) };
}
