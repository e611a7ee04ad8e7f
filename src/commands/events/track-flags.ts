import {
  BATCH_GLOBALS,
  batchFlags,
  checkBatchOptions,
  IGNORE_UNKNOWN_COLUMNS_FLAG,
  PASS_COLUMN_FLAG,
  rejectBatchOptions,
  SUMMARY_JSON_FLAG,
} from '../../cmdutil/batch-options.js';
import { commandOptions, textFlag, type ValuesOf, withBrief } from '../../cmdutil/flags.js';
import { dataFlag, setFlag } from '../../cmdutil/body-flags.js';
import { UsageError } from '../../errors.js';

// The flags of `events track`, for one event (track.ts) and for a file (track-file.ts).

export const TRACK_FILE_DEFAULTS = { concurrency: 16, maxChunkSize: 1 };

export const options = commandOptions(
  {
    event: textFlag('--event <name>', 'event name (free-form)'),
    userId: withBrief(
      textFlag('--user-id <id>', 'the contact by your user id (falls back to --email when it matches no contact)'),
      'the contact by your user id',
    ),
    email: textFlag('--email <address>', 'the contact by email'),
    clientEventId: withBrief(
      textFlag(
        '--client-event-id <id>',
        'your id for this event; repeats are ignored by the API (default: a new UUID, reused on every retry)',
      ),
      'your id for this event (default: a new UUID)',
    ),
    data: withBrief(
      dataFlag('event payload, a JSON object, sent as written (event data has no field definitions to convert by)'),
      'event payload, a JSON object, sent as written',
    ),
    set: withBrief(
      setFlag(
        'any other body field, e.g. the occurred-at time or create-contact flag the spec names but does not spell (repeatable)',
      ),
      'any other body member, sent as given',
    ),
    file: withBrief(
      textFlag('--file <file>', 'track every row of a CSV, NDJSON or JSON file (- for stdin), one request per row'),
      'track every row of a CSV, NDJSON or JSON file',
    ),
    idColumn: withBrief(
      textFlag(
        '--id-column <column>',
        'with --file: the column that identifies an event across runs; its clientEventId derives from it, and the ledger sends only lines it has not sent (a file that grows: only the new lines; docs/ledger.md)',
      ),
      'the column naming an event: send new lines only',
    ),
    ...batchFlags(TRACK_FILE_DEFAULTS),
    ...IGNORE_UNKNOWN_COLUMNS_FLAG,
    ...PASS_COLUMN_FLAG,
    ...SUMMARY_JSON_FLAG,
  },
  {
    globals: BATCH_GLOBALS,
    check(opts) {
      if (opts.file === undefined) {
        if (opts.idColumn !== undefined) throw new UsageError('--id-column: goes only with --file');
        return rejectBatchOptions(opts, '--file');
      }
      if (opts.idColumn !== undefined && (opts.resumeFromReport !== undefined || opts.force))
        throw new UsageError(
          `${opts.force ? '--force' : '--resume-from-report'}: not with --id-column, whose ledger sends only what it has not sent (a rerun is the resume)`,
          undefined,
          'conflicting_options',
        );
      for (const [key, flag] of [
        ['userId', '--user-id'],
        ['email', '--email'],
        ['clientEventId', '--client-event-id'],
      ] as const) {
        if (opts[key] !== undefined)
          throw new UsageError(`--file: each row names its contact and event id; drop ${flag}`);
      }
      checkBatchOptions(opts);
    },
  },
);

export type TrackOptions = ValuesOf<typeof options>;
