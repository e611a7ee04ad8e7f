/**
 * Exit codes shared by every command (documented in README.md, `cnv help exit-codes`
 * (src/cli/help-topics.ts) and docs/architecture.md).
 */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  rejected: 3,
  auth: 4,
  notFound: 5,
  partial: 6,
  transient: 7,
  localFile: 8,
  /** --exit-code of the syncs: the file and the account (or the ledger) differ (as git diff --exit-code). */
  pendingChanges: 9,
  interrupted: 130,
  outputClosed: 141,
  terminated: 143,
} as const;

/** Base of every error the CLI expects; anything else is a bug (exit 1). */
export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string;
  readonly hint?: string;

  constructor(message: string, opts: { exitCode: number; code: string; hint?: string; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode;
    this.code = opts.code;
    this.hint = opts.hint;
  }
}

/** Bad flag, malformed file or a value caught before anything was sent. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string, code = 'usage') {
    super(message, { exitCode: ExitCode.usage, code, hint });
  }
}

/** No usable API key, or the key was refused. */
export class AuthError extends CliError {
  constructor(message: string, hint?: string, code = 'unauthorized') {
    super(message, { exitCode: ExitCode.auth, code, hint });
  }
}

/** The API answered with its error body `{error:{code,message}}`. */
export class ApiError extends CliError {
  readonly status: number;

  constructor(status: number, code: string, message: string, hint?: string) {
    super(message, { exitCode: exitCodeForStatus(status), code, hint: hint ?? hintFor(status, code) });
    this.status = status;
  }
}

/** Network failure, 5xx or 429 still failing after every retry, or a held lock. */
export class TransientError extends CliError {
  constructor(message: string, opts: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, {
      exitCode: ExitCode.transient,
      code: opts.code ?? 'transient',
      hint: opts.hint,
      cause: opts.cause,
    });
  }
}

/**
 * A 5xx or 429 whose body is not the API's (a proxy's or gateway's page) on every attempt:
 * transient like the API's own 5xx (a gateway hiccup passes), and named for what it was.
 */
export class GatewayError extends TransientError {
  readonly status: number;

  constructor(status: number, message: string, hint?: string) {
    super(message, { code: `http_${status}`, hint });
    this.status = status;
  }
}

/** The server answered 200 with a body that breaks the contract. */
export class ResponseShapeError extends CliError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.rejected, code: 'invalid_response' });
  }
}

/**
 * The answer is not this API's: not JSON, or JSON without its envelope (`{ data }` on success,
 * `{ error: { code, message } }` on failure), a redirect, or a body past the size limit. Exit 3:
 * asking again will not help, the base URL (or a proxy on the way) is wrong.
 */
export class NotTheApiError extends CliError {
  readonly status?: number;

  constructor(message: string, opts: { status?: number; hint?: string; code?: string } = {}) {
    super(message, {
      exitCode: ExitCode.rejected,
      code: opts.code ?? 'not_the_api',
      hint:
        opts.hint ??
        "check --base-url (or CNV_BASE_URL, or the profile's URL): it must be the address the API answers at",
    });
    this.status = opts.status;
  }
}

/** The code src/lib/regular-file.ts gives a path that is no regular file (a FIFO, a device, a directory). */
const NOT_REGULAR = 'ENOTREG';

/** Errno codes of a local file system that refuses a write: full, over quota, read-only, denied or failing. */
const FILE_SYSTEM_CODES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EIO: 'an I/O error occurred',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/**
 * A local file (output, state, lock, report) could not be read or written: exit 8, naming the
 * path and what it is. Not a bug, and nothing committed before it is lost.
 */
export class LocalFileError extends CliError {
  readonly path: string;

  constructor(what: string, path: string, errno: string, hint?: string, reason?: string) {
    super(`cannot write the ${what} ${path}: ${reason ?? FILE_SYSTEM_CODES[errno] ?? errno} (${errno})`, {
      exitCode: ExitCode.localFile,
      code: errno === 'ENOSPC' || errno === 'EDQUOT' ? 'disk_full' : 'file_system_error',
      hint: hint ?? 'free space or fix the permissions, then run again: what was committed stays committed',
    });
    this.path = path;
  }

  /**
   * A file to write in a directory that does not exist (or is not a directory): named, not made,
   * since a typo would make a tree.
   */
  static missingDirectory(
    what: string,
    path: string,
    dir: string,
    errno: 'ENOENT' | 'ENOTDIR' = 'ENOENT',
  ): LocalFileError {
    return errno === 'ENOTDIR'
      ? new LocalFileError(what, path, errno, 'give a path in a directory', `${dir} is not a directory`)
      : new LocalFileError(
          what,
          path,
          errno,
          `create it first (mkdir -p ${dir}), or give another path`,
          `the directory ${dir} does not exist`,
        );
  }

  /** The typed error for a file system failure on `path`, or undefined when `err` is something else. */
  static from(err: unknown, what: string, path: string, hint?: string): LocalFileError | undefined {
    if (err instanceof LocalFileError) return err;
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === NOT_REGULAR)
      return new NotRegularFileError(what, path, (err as { kind?: string }).kind ?? 'not a regular file');
    return code && code in FILE_SYSTEM_CODES ? new LocalFileError(what, path, code, hint) : undefined;
  }
}

/**
 * A file cnv keeps (state, snapshot, record, config) is something else at its path: a symbolic
 * link, a FIFO, a device, a directory. Exit 8 naming it; cnv never follows, writes through or
 * waits on it (src/lib/regular-file.ts).
 */
class NotRegularFileError extends LocalFileError {
  constructor(what: string, path: string, kind: string) {
    super(what, path, NOT_REGULAR, 'cnv did not put it there: remove it (or move it aside), then run again');
    const remove = 'remove it (cnv neither reads it nor waits on it, nor writes through it)';
    this.message = `the ${what} ${path} is ${kind}, not a regular file: ${remove}`;
  }
}

/** The run was stopped by SIGINT/SIGTERM. */
export class InterruptedError extends CliError {
  constructor(signal: 'SIGINT' | 'SIGTERM' = 'SIGINT') {
    super(`interrupted by ${signal}`, {
      exitCode: signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted,
      code: 'interrupted',
    });
  }
}

function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 408 || status === 429 || status >= 500) return ExitCode.transient;
  return ExitCode.rejected;
}

function hintFor(status: number, code: string): string | undefined {
  if (status === 401) return 'set a valid key with `cnv config set-key` or CNV_API_KEY; `cnv doctor` checks it';
  if (code === 'export_not_enabled') {
    return (
      'this endpoint is not enabled for the account behind this key; ' +
      'ask the provider to enable it (`cnv doctor` lists what this key may use)'
    );
  }
  if (status === 403) return 'the key is valid but lacks the permission this operation needs';
  if (code === 'invalid_cursor')
    return 'the cursor is not (or no longer) accepted: start again without --cursor, or for an export with --full';
  return undefined;
}

/** The reader of stdout went away (EPIPE), as with `| head`. */
export class OutputClosedError extends CliError {
  constructor() {
    super('stdout was closed by the reader (EPIPE)', { exitCode: ExitCode.outputClosed, code: 'output_closed' });
  }
}

/**
 * A write to stdout that failed: the reader went away (EPIPE, exit 141, no error line), or the
 * file or device it goes to refused it (`> /dev/full`, a full disk, a read-only one, a closed
 * descriptor): exit 8 naming stdout, never "a bug in cnv" and never a success with the output lost.
 */
export function stdoutError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EPIPE') return new OutputClosedError();
  return new LocalFileError(
    'output to',
    'stdout',
    typeof code === 'string' ? code : 'EIO',
    'stdout goes to a file or device that cannot take it (a full disk?): free space or send it elsewhere, then run again',
  );
}

/**
 * Whether a run its `signal` stopped was interrupted (SIGINT/SIGTERM, the reader gone), not failed
 * (stdout cannot be written).
 */
export function interruptedBy(signal: AbortSignal): boolean {
  return signal.aborted && !(signal.reason instanceof LocalFileError);
}

/** Ends a --dry-run after the request was printed instead of sent; not a failure. */
export class DryRunStop extends CliError {
  constructor() {
    super('dry run: nothing was sent', { exitCode: ExitCode.ok, code: 'dry_run' });
  }
}
