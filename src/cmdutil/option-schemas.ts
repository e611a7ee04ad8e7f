import { z } from 'zod';

// Schemas of option values that commander parsers in src/cli/parse.ts produce, for the commands'
// options schemas (src/commands/contract.ts).

/** A repeatable `--set name=value` (collectPair): the pairs in order, values parsed loosely. */
export const setPairsOption = z.array(z.tuple([z.string(), z.unknown()])).optional();

/** `--data '{...}'` (jsonObject): a JSON object. */
export const jsonObjectOption = z.record(z.string(), z.unknown()).optional();
