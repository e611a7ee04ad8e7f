import type { Clock } from '../clock.js';
import type { Notices, ProgressDisplay } from '../output/notices.js';
import type { IO } from '../terminal/streams.js';

/** What a file run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface BatchDeps {
  /**
   * stdin (the input as `-`), stdout (`--report -`, `--summary-json -`, --dry-run's requests) and
   * stderr (the line asking for rows at a terminal, --quiet's failure line).
   */
  io: IO;
  clock: Clock;
  signal: AbortSignal;
  notices: Notices;
  /** --quiet: notices print nothing; a partial run still says so in one line. */
  quiet: boolean;
  /** --json or -q: prints the run's summary document (the --summary-json one) on stdout. */
  printDocument?: (document: Record<string, unknown>) => void;
  /** The spinner's place; none when progress display is not allowed. */
  progress?: ProgressDisplay;
  /** Starts loading the HTTP stack in the background while the file is opened and checked. */
  prepareHttp(): void;
  /**
   * The account the rows go to (src/config/account-identity.ts: the key's identity, the API's host
   * and path, never the key), as a report names it; undefined when no key is set (a dry run).
   */
  account(): Promise<string | undefined>;
  /** The command line that runs this again resuming from `report` (shell-quoted); none in-process without arguments. */
  resumeCommand?(report: string): string;
}
