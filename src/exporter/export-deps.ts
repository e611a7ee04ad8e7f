import type { Writable } from 'node:stream';
import type { Clock } from '../clock.js';
import type { ConfigDirWhere } from '../config/paths.js';
import type { HttpClient } from '../http/client.js';
import type { Notices, ProgressDisplay } from '../output/notices.js';

/** The config directory (states, locks, file records), and how it was chosen, for messages. */
export interface StateDir {
  path: string;
  where: ConfigDirWhere;
}

/** The account a run sends with, as its state key and state name it. */
interface Account {
  profile: string;
  baseUrl: string;
  apiKey: string;
}

/** What an export run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface ExportDeps {
  /** The HTTP client (made on first use). */
  http(): Promise<HttpClient>;
  account(): Promise<Account>;
  clock: Clock;
  signal: AbortSignal;
  stateDir: StateDir;
  notices: Notices;
  /** Where the rows go without --out. */
  stdout: Writable;
  /** Cleanup when the process ends, whatever happened (the state lock's release). */
  onDispose(fn: () => Promise<void> | void): void;
  /** The executable's heap hold (src/runtime/heap-hold.ts), given by the launcher only: none in-process. */
  holdHeap?: () => () => void;
}

/** What an export's progress display and summary take. */
export interface ReporterDeps {
  clock: Clock;
  signal: AbortSignal;
  notices: Notices;
  /** Where a `--summary-json -` goes. */
  stdout: Writable;
  /** --json or -q: prints the run's summary document (the --summary-json one) on stdout. */
  printDocument?: (document: Record<string, unknown>) => void;
  /** The spinner's place; none when progress display is not allowed. */
  progress?: ProgressDisplay;
  onDispose(fn: () => Promise<void> | void): void;
}
