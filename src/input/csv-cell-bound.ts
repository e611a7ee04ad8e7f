import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;

/** A CSV record of more cells than a reader holds: the reader stops (its error's `code`). */
export class CsvTooManyCells extends Error {
  readonly code = 'CSV_TOO_MANY_CELLS';
  constructor(readonly max: number) {
    super(`a record holds more than ${max.toLocaleString('en-US')} cells`);
  }
}

/**
 * A pass-through for the bytes of a comma-separated file read by csv-parse, which counts a
 * record's size in characters of its values (`max_record_size`): a line of empty cells is none,
 * and 100 MB of commas became 100 million strings (5 GB). This counts the cells of each record
 * (commas outside quotes; a doubled quote toggles twice) and fails with CsvTooManyCells past `max`.
 */
export function boundCsvCells(max: number): Transform {
  let quoted = false;
  let cells = 1;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (c === QUOTE) quoted = !quoted;
        else if (quoted) continue;
        else if (c === LF) cells = 1;
        else if (c === COMMA && ++cells > max) return done(new CsvTooManyCells(max));
      }
      done(null, chunk);
    },
  });
}
