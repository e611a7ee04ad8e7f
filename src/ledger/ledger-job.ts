import { accountIdentity } from '../config/account-identity.js';
import { stateFileStem } from '../exporter/state-key.js';

/**
 * One job of the ledger: an account, a command, what it writes to and the column that keys its
 * rows (docs/ledger.md). Two runs of one job share a ledger; anything else (another account,
 * audience, custom object or key column) is another job.
 */
export interface LedgerJob {
  /** `<account>/<command>[/<target>]/<key column>`: the name `cnv ledger` shows and takes. */
  key: string;
  /** The account as export states name it (the key's identity, the API's host and path; never the key). */
  account: string;
  /** `audience sync`, `campaigns sync`, `records sync`, `events track`. */
  command: string;
  /** The audience, campaign or custom object; null for events. */
  target: string | null;
  /** The column whose value keys a row (`identifier`: the contact identifier a row sends). */
  keyColumn: string;
}

/**
 * The job of `command` on `target` keyed by `keyColumn`, for the account of these credentials.
 * The one place the ledger names an account: as export states and the sync snapshot do
 * (src/config/account-identity.ts, `accountIdentity`), so every profile of one account shares its jobs.
 */
export function ledgerJob(
  credentials: { baseUrl: string; apiKey: string },
  command: string,
  target: string | undefined,
  keyColumn: string,
): LedgerJob {
  const account = accountIdentity(credentials.baseUrl, credentials.apiKey);
  const key = `${account}/${command.replace(/ /g, '-')}${target ? `/${target}` : ''}/${keyColumn}`;
  return { key, account, command, target: target ?? null, keyColumn };
}

/** The file stem of a job's ledger (readable, unique by a hash of the whole key), as export states name theirs. */
export function ledgerStem(jobKey: string): string {
  return stateFileStem(jobKey);
}
