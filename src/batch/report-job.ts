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
}

/** The mark that opens a report's first line, and the version of what follows it. */
export const JOB_MARK = '#cnv-report ';
const VERSION = 2;

/** The first line of a report: the mark and the job as JSON. */
export function jobLine(job: ReportJob): string {
  return `${JOB_MARK}${JSON.stringify({ version: VERSION, command: job.command, target: job.target ?? null, input: job.input })}\n`;
}

/** The job a report's first line names (a BOM before it allowed); undefined when the line is not one. */
export function parseJobLine(line: string): (ReportJob & { version: number }) | undefined {
  const text = line.replace(/^\uFEFF/, '').replace(/\r$/, '');
  if (!text.startsWith(JOB_MARK)) return undefined;
  try {
    const v = JSON.parse(text.slice(JOB_MARK.length)) as Record<string, unknown>;
    if (typeof v.version !== 'number' || typeof v.command !== 'string' || typeof v.input !== 'string') return undefined;
    if (v.target !== null && typeof v.target !== 'string') return undefined;
    return { version: v.version, command: v.command, input: v.input, ...(typeof v.target === 'string' ? { target: v.target } : {}) };
  } catch {
    return undefined;
  }
}

/** Whether a report of `earlier` may be resumed by `now`: same command and target, an input file of the same name. */
export function sameJob(earlier: ReportJob & { version: number }, now: ReportJob): boolean {
  return earlier.version === VERSION && earlier.command === now.command && (earlier.target ?? '') === (now.target ?? '') && inputName(earlier.input) === inputName(now.input);
}

/** A job as a message names it: `audience add c100… on people.csv`. */
export function describeJob(job: ReportJob): string {
  return `\`${job.command}${job.target ? ` ${job.target}` : ''}\` on ${job.input === '-' ? 'stdin' : inputName(job.input)}`;
}

// The file's name decides, not its directory: a report and its input moved together stay a pair.
function inputName(input: string): string {
  return input === '-' ? '-' : basename(input);
}
