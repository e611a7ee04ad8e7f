import { z } from 'zod';
import { sameAccount } from '../config/account-identity.js';
import { EMAIL_EVENT_TYPES } from '../endpoints/exports.js';
import { UsageError } from '../errors.js';
import { laneSchema, type LanePosition } from '../exporter/export-state.js';
import { describeProblem, readJsonDocument } from '../singer/json-file.js';
import { stateParts } from './state-document.js';
import type { StreamName } from './stream-table.js';

// The Singer state the tap writes (STATE messages) and reads back (--state): per stream, the
// export protocol's position (the cursor and the identities delivered from it, so a resumed run
// repeats no row), and the account it belongs to (never the key).

const contactsBookmark = laneSchema.extend({
  account: z.string(),
  replication_key: z.literal('updatedAt'),
  /** The table version records carry (Singer `version`): set by the last full pass. */
  version: z.number().int(),
  /** True while a full pass runs: its end writes ACTIVATE_VERSION. */
  full_pass: z.boolean(),
  /** The CONTACT field keys the run read: a key gone by the next run is a deleted field (field-notes.ts). */
  fields: z.array(z.string()).optional(),
});
export type ContactsBookmark = z.infer<typeof contactsBookmark>;

const customEventsBookmark = laneSchema.extend({
  account: z.string(),
  replication_key: z.literal('occurredAt'),
  /** The occurredAt window's start the first call sent (the cursor carries it after). */
  since: z.string(),
});
type CustomEventsBookmark = z.infer<typeof customEventsBookmark>;

const typeName = z.enum(EMAIL_EVENT_TYPES);
const emailEventsBookmark = z.object({
  account: z.string(),
  replication_key: z.literal('occurredAt'),
  /** Each email event type's own cursor. */
  types: z.partialRecord(typeName, laneSchema),
});
type EmailEventsBookmark = z.infer<typeof emailEventsBookmark>;

const STATE = z.looseObject({
  bookmarks: z
    .looseObject({
      contacts: contactsBookmark.optional(),
      custom_events: customEventsBookmark.optional(),
      email_events: emailEventsBookmark.optional(),
    })
    .optional(),
});

export interface Bookmarks {
  contacts?: ContactsBookmark;
  custom_events?: CustomEventsBookmark;
  email_events?: EmailEventsBookmark;
}

/** A lane that has not started. */
export const NEW_LANE: LanePosition = { cursor: null, cursorAt: null, seen: [], rows: 0, pages: 0 };

/**
 * Reads --state FILE (state-document.ts first: a document that is not a state is refused, SDK-form
 * bookmarks become rewinds). Bookmarks of another account (base URL and key identity) are
 * refused, exit 2: a state is never applied to another account's data. An empty document is no state.
 */
export async function readTapState(
  path: string,
  account: string,
  warn: (m: string) => void,
  signal?: AbortSignal,
): Promise<{ bookmarks: Bookmarks; rewind: Partial<Record<StreamName, string>> }> {
  const { state, rewind } = stateParts('--state', path, await readJsonDocument('--state', path, signal), warn);
  const parsed = STATE.safeParse(state);
  if (!parsed.success)
    throw new UsageError(
      describeProblem('--state', path, parsed.error.issues[0], state),
      "give a state this tap wrote (its last STATE message's value), or none to start over",
    );
  const bookmarks: Bookmarks = parsed.data.bookmarks ?? {};
  for (const [stream, bookmark] of Object.entries(bookmarks)) {
    const owner = (bookmark as { account?: unknown } | undefined)?.account;
    if (typeof owner === 'string' && !sameAccount(owner, account)) {
      throw new UsageError(
        `--state ${path}: bookmarks.${stream} belongs to account ${owner}, not to this config's account ${account}; refused`,
        "give this account's state, or run without --state (a full sync) to start this account over",
        'state_account_mismatch',
      );
    }
  }
  return {
    bookmarks: {
      contacts: bookmarks.contacts,
      custom_events: bookmarks.custom_events,
      email_events: bookmarks.email_events,
    },
    rewind,
  };
}
