import { z } from 'zod';
import {
  BATCH_GLOBALS,
  batchFlags,
  checkBatchOptions,
  NUMBER_CONVENTION_FLAGS,
  IGNORE_UNKNOWN_COLUMNS_FLAG,
  PASS_COLUMN_FLAG,
  rejectBatchOptions,
  SUMMARY_JSON_FLAG,
} from './batch-options.js';
import { commandOptions, flag, switchFlag, textFlag, type OptionValues, type ValuesOf, withBrief } from './flags.js';
import { caseInsensitiveChoice } from './parse.js';
import { setFlag } from './body-flags.js';
import { UsageError } from '../errors.js';
import { FIELD_FLAGS } from './contact-field-flags.js';
import { SETTABLE_STATUSES } from '../endpoints/contacts.js';

// The flags of `contacts upsert`, for one contact (commands/contacts/upsert.ts) and for a file (contact-upsert-file.ts).

export const UPSERT_FILE_DEFAULTS = { concurrency: 16, maxChunkSize: 1, typedNumbers: true };

/** The flags that apply to every row of a file: `contacts upsert --file` and `contacts sync`. */
export const FILE_ROW_FLAGS = {
  status: withBrief(
    flag(
      '--status <status>',
      `subscription status: ${SETTABLE_STATUSES.join(', ')} (any case)`,
      z.enum(SETTABLE_STATUSES).optional(),
      { parse: caseInsensitiveChoice(SETTABLE_STATUSES) },
    ),
    `${SETTABLE_STATUSES.join(', ')} (any case)`,
  ),
  ...FIELD_FLAGS,
  updateOnly: withBrief(
    switchFlag('--update-only', 'never create: fail with exit 5 when no contact matches'),
    'never create: exit 5 when no contact matches',
  ),
  set: withBrief(
    setFlag('any other body field, e.g. a flag the spec names but does not spell (repeatable)'),
    'any other body member, sent as given',
  ),
  ...batchFlags(UPSERT_FILE_DEFAULTS),
  ...IGNORE_UNKNOWN_COLUMNS_FLAG,
  ...PASS_COLUMN_FLAG,
  ...NUMBER_CONVENTION_FLAGS,
  ...SUMMARY_JSON_FLAG,
};

export const options = commandOptions(
  {
    email: withBrief(
      textFlag('--email <address>', 'identifies the contact; with --contact-id it becomes the new address'),
      'the contact; with --contact-id, its new email',
    ),
    contactId: withBrief(
      textFlag('--contact-id <uuid>', 'identifies the contact by cnvContactId (wins over --email)'),
      'the contact by cnvContactId (wins over --email)',
    ),
    file: withBrief(
      textFlag('--file <file>', 'upsert every row of a CSV, NDJSON or JSON file (- for stdin), one request per row'),
      'upsert every row of a CSV, NDJSON or JSON file',
    ),
    ...FILE_ROW_FLAGS,
  },
  {
    globals: BATCH_GLOBALS,
    check(opts) {
      if (opts.file === undefined) return rejectBatchOptions(opts, '--file');
      for (const key of ['email', 'contactId'] as const) {
        if (opts[key] !== undefined)
          throw new UsageError(
            `--file: each row names its contact; drop --${key === 'contactId' ? 'contact-id' : 'email'}`,
          );
      }
      checkBatchOptions(opts);
    },
  },
);

export type UpsertOptions = ValuesOf<typeof options>;

/** What a file run of contact upserts reads of its options (`contacts upsert --file`, `contacts sync`). */
export type FileRowOptions = OptionValues<typeof FILE_ROW_FLAGS> & { file: string };
