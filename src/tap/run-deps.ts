import type { Writable } from 'node:stream';
import type { HttpClient } from '../http/client.js';

/** What a tap run takes from the command around it: narrow on purpose (never the CLI's Context). */
export interface TapDeps {
  http: HttpClient;
  /** The account's identity (base URL and key identity, never the key): kept in every bookmark. */
  account: string;
  signal: AbortSignal;
  /** Where the Singer messages go. */
  stdout: Writable;
  now: () => number;
  /** The executable's heap hold (src/runtime/heap-hold.ts), given by the launcher only: the check to run after each page. */
  holdHeap?: () => () => void;
  /** Lines on stderr. */
  warn(message: string): void;
  info(message: string): void;
}
