import type { HttpClient } from '../http/client.js';
import type { LayerDeps } from '../output/layer-deps.js';

/** What a tap run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface TapDeps extends Pick<LayerDeps, 'signal' | 'stdout' | 'holdHeap'> {
  http: HttpClient;
  /** The account's identity (base URL and key identity, never the key): kept in every bookmark. */
  account: string;
  now: () => number;
  /** Lines on stderr. */
  warn(message: string): void;
  info(message: string): void;
}
