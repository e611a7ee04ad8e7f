import { z } from 'zod';
import { MAX_RECORDS_PER_BATCH } from '../endpoints/endpoints.js';
import type { EmptyCells } from '../records/prepare.js';
import { flag } from './flags.js';
import { caseInsensitiveChoice } from './parse.js';

// What records upsert and records sync share of their flags: the file run's defaults and how
// values are read (--no-coerce, --empty-cells).

/** The file run of records: 4 requests in flight, up to 200 records each, NUMBER cells typed by the definitions. */
export const RECORDS_DEFAULTS = {
  concurrency: 4,
  maxChunkSize: MAX_RECORDS_PER_BATCH,
  columns: 'records' as const,
  typedNumbers: true,
};

const EMPTY_CELLS: readonly EmptyCells[] = ['skip', 'null'];

/** --no-coerce and --empty-cells, with their help lines. */
export function recordValueFlags(help: { coerce: string; emptyCells: string }) {
  return {
    /** false with --no-coerce. */
    coerce: flag('--no-coerce', help.coerce, z.boolean()),
    emptyCells: flag('--empty-cells <mode>', help.emptyCells, z.enum(['skip', 'null']), {
      parse: caseInsensitiveChoice(EMPTY_CELLS),
      defaultValue: 'skip',
    }),
  };
}
