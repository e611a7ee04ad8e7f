import { z } from 'zod';
import { MAX_RECORDS_PER_BATCH } from '../endpoints/endpoints.js';
import type { EmptyCells } from '../records/prepare.js';
import { flag, withBrief } from './flags.js';
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

/** --no-coerce and --empty-cells, with their help lines (and the one line of `--help` when they are longer). */
export function recordValueFlags(
  help: { coerce: string; emptyCells: string },
  briefs?: { coerce: string; emptyCells: string },
) {
  const coerce = flag('--no-coerce', help.coerce, z.boolean());
  const emptyCells = flag('--empty-cells <mode>', help.emptyCells, z.enum(['skip', 'null']), {
    parse: caseInsensitiveChoice(EMPTY_CELLS),
    defaultValue: 'skip',
  });
  return {
    /** false with --no-coerce. */
    coerce: briefs ? withBrief(coerce, briefs.coerce) : coerce,
    emptyCells: briefs ? withBrief(emptyCells, briefs.emptyCells) : emptyCells,
  };
}
