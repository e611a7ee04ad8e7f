import type { ConfigDirWhere } from '../config/paths.js';
import type { HttpClient } from '../http/client.js';
import type { LayerDeps } from '../output/layer-deps.js';

/** The config directory (states, locks, file records), and how it was chosen, for messages. */
export interface StateDir {
  path: string;
  where: ConfigDirWhere;
}

/** What an export run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface ExportDeps extends Pick<
  LayerDeps,
  'clock' | 'signal' | 'notices' | 'stdout' | 'onDispose' | 'holdHeap'
> {
  /** The HTTP client (made on first use). */
  http(): Promise<HttpClient>;
  /** The account a run sends with, as its state key and state name it. */
  account(): Promise<{ profile: string; baseUrl: string; apiKey: string }>;
  stateDir: StateDir;
}

/** What an export's progress display and summary take. */
export type ReporterDeps = Pick<
  LayerDeps,
  'clock' | 'signal' | 'notices' | 'quiet' | 'stdout' | 'printDocument' | 'progress' | 'onDispose'
>;
