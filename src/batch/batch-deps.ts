import type { LayerDeps } from '../output/layer-deps.js';
import type { IO } from '../terminal/io.js';

/** What a file run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface BatchDeps extends Pick<
  LayerDeps,
  'clock' | 'signal' | 'notices' | 'quiet' | 'printDocument' | 'progress'
> {
  /**
   * stdin (the input as `-`), stdout (`--report -`, `--summary-json -`, --dry-run's requests) and
   * stderr (the line asking for rows at a terminal, --quiet's failure line).
   */
  io: IO;
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
