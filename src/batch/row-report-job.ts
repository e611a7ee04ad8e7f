import { basename } from 'node:path';
import { sameAccount } from '../config/account-identity.js';

/**
 * The run a report belongs to, in every row's `job` cell: a resume from a report of another
 * command, target, input file or account is refused (docs/batches.md, "Resuming").
 */
export interface ReportJob {
  /** The command: `audience add`, `campaigns add`, `contacts upsert`, `events track`, `records upsert`. */
  command: string;
  /** What the rows go to: the audience, campaign or custom object id; none for contacts and events. */
  target?: string;
  /** The input file as given on the command line (`-` for stdin). */
  input: string;
  /**
   * The account the rows went to (src/config/account-identity.ts: the key's identity and the API's host and path,
   * never the key); none when no key is set (a dry run).
   */
  account?: string;
}

/**
 * The `job` cell of a report's rows: the job as JSON, the input by its file name (what a resume
 * compares). A report is a plain CSV whose first line is its header, so the job rides in a
 * column rather than on a line of its own that CSV readers would take for the header.
 */
export function jobCell(job: ReportJob): string {
  return JSON.stringify({
    command: job.command,
    target: job.target ?? null,
    input: inputName(job.input),
    account: job.account ?? null,
  });
}

/** The job a `job` cell names; undefined when the cell is not one. */
export function parseJobCell(cell: string): ReportJob | undefined {
  try {
    return jobOf(JSON.parse(cell) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

function jobOf(v: Record<string, unknown>): ReportJob | undefined {
  if (typeof v !== 'object' || v === null || typeof v.command !== 'string' || typeof v.input !== 'string')
    return undefined;
  if (v.target !== null && v.target !== undefined && typeof v.target !== 'string') return undefined;
  return {
    command: v.command,
    input: v.input,
    ...(typeof v.target === 'string' ? { target: v.target } : {}),
    ...(typeof v.account === 'string' ? { account: v.account } : {}),
  };
}

/**
 * Whether a report of `earlier` may be resumed by `now`: same command and target, an input file
 * of the same name, and the same account (the same audience id in another business is another
 * audience) when both name one; a report written before names it otherwise (sameAccount).
 */
export function sameJob(earlier: ReportJob, now: ReportJob): boolean {
  const bothAccount =
    earlier.account === undefined || now.account === undefined || sameAccount(earlier.account, now.account);
  return (
    earlier.command === now.command &&
    (earlier.target ?? '') === (now.target ?? '') &&
    inputName(earlier.input) === inputName(now.input) &&
    bothAccount
  );
}

/**
 * A job as a message names it: `audience add c100… on people.csv`, with the account
 * (`sk_live_ab@api.example.com`) when `withAccount` (the two jobs differ only there).
 */
export function describeJob(job: ReportJob, withAccount = false): string {
  const account = withAccount ? ` (${job.account ?? 'no account'})` : '';
  const target = job.target ? ` ${job.target}` : '';
  const input = job.input === '-' ? 'stdin' : inputName(job.input);
  return `\`${job.command}${target}\` on ${input}${account}`;
}

// The file's name decides, not its directory: a report and its input moved together stay a pair.
function inputName(input: string): string {
  return input === '-' ? '-' : basename(input);
}
