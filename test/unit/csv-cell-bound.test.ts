import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { boundCsvCells, CsvTooManyCells } from '../../src/input/csv-cell-bound.js';

const through = (chunks: string[], max: number) =>
  text(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(boundCsvCells(max)));

describe('boundCsvCells', () => {
  it('passes the bytes through as they are while each record holds at most max cells', async () => {
    const csv = 'a,b,c\n1,"x,y,z,w",3\n4,5,6\n';
    expect(await through([csv.slice(0, 9), csv.slice(9)], 3)).toBe(csv);
  });

  it('counts cells across chunks, and only commas outside quotes (a doubled quote toggles twice)', async () => {
    await expect(through(['a,"b"",",', 'c,d\n'], 3)).rejects.toBeInstanceOf(CsvTooManyCells);
    expect(await through(['a,"b"",",c\n', 'd,e,f\n'], 3)).toBe('a,"b"",",c\nd,e,f\n');
  });

  it('a line of 200,000 empty cells fails at the bound, naming it', async () => {
    await expect(through([`x\n${','.repeat(200_000)}\n`], 100_000)).rejects.toThrow(
      'a record holds more than 100,000 cells',
    );
  });
});
