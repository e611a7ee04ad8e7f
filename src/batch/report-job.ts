import { basename } from 'node:path';

/**
 * The run a report belongs to, written on its first line (`#cnv-report {...}`): a resume from a
 * report of another command, target or input file is refused (docs/batches.md, "Resuming").
 */
export interface ReportJob {
  /** The command: `audience add`, `campaigns add`, `contacts upsert`, `events track`, `records upsert`. */
  command: string;
  /** What the rows go to: the audience, campaign or custom object id; none for contacts and events. */
  target?: string;
  /** The input file as given on the command line (`-` for stdin). */
  input: string;
  /** The account the rows went to: the API's host and path, and the key's masked id (never the key); none when no key is set (a dry run). */
  account?: string;
}

/** The mark that opens a report's first line, and the version of what follows it. */
export const JOB_MARK = '#cnv-report ';
/** The report format: 3 names the account (2 did not). */
export const REPORT_VERSION = 3;
const VERSION = REPORT_VERSION;

/** The first line of a report: the mark and the job as JSON. */
export function jobLine(job: ReportJob): string {
  return `${JOB_MARK}${JSON.stringify({ version: VERSION, command: job.command, target: job.target ?? null, input: job.input, account: job.account ?? null })}\n`;
}

/** The job a report's first line names (a BOM before it allowed); undefined when the line is not one. */
export function parseJobLine(line: string): (ReportJob & { version: number }) | undefined {
  const text = line.replace(/^\uFEFF/, '').replace(/\r$/, '');
  if (!text.startsWith(JOB_MARK)) return undefined;
  try {
    const v = JSON.parse(text.slice(JOB_MARK.length)) as Record<string, unknown>;
    if (typeof v.version !== 'number' || typeof v.command !== 'string' || typeof v.input !== 'string') return undefined;
    if (v.target !== null && typeof v.target !== 'string') return undefined;
    return {
      version: v.version, command: v.command, input: v.input,
      ...(typeof v.target === 'string' ? { target: v.target } : {}),
      ...(typeof v.account === 'string' ? { account: v.account } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a report of `earlier` may be resumed by `now`: same command and target, an input file
 * of the same name, and the same account (the same audience id in another business is another
 * audience) when both name one.
 */
export function sameJob(earlier: ReportJob & { version: number }, now: ReportJob): boolean {
  const sameAccount = earlier.account === undefined || now.account === undefined || earlier.account === now.account;
  return earlier.version === VERSION && earlier.command === now.command && (earlier.target ?? '') === (now.target ?? '') && inputName(earlier.input) === inputName(now.input) && sameAccount;
}

/**
 * A job as a message names it: `audience add c100… on people.csv`, with the account
 * (`api.example.com/ sk_live_ab_****`) when `withAccount` (the two jobs differ only there).
 */
export function describeJob(job: ReportJob, withAccount = false): string {
  const account = withAccount ? ` (${job.account ?? 'no account'})` : '';
  return `\`${job.command}${job.target ? ` ${job.target}` : ''}\` on ${job.input === '-' ? 'stdin' : inputName(job.input)}${account}`;
}

/** The account of a run as a report names it: host and path of the base URL, and the key's masked id. */
export function accountOf(baseUrl: string, maskedKey: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.host}${url.pathname.replace(/\/+$/, '')} ${maskedKey}`;
  } catch {
    return maskedKey;
  }
}

// The file's name decides, not its directory: a report and its input moved together stay a pair.
function inputName(input: string): string {
  return input === '-' ? '-' : basename(input);
}
