import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { looseJson } from '../json/exact-json.js';
import { setOwn } from '../lib/own-key.js';
import { ownRecord } from '../json/own-record.js';
import { flag } from './flags.js';

// The flags that write a request body as given: `--set name=value` and `--data '{...}'` (apart
// from parse.ts, which the program loads at start-up: these build zod schemas).

/** Commander collector for repeatable `key=value` options. */
function collectPair(value: string, previous: Array<[string, unknown]> = []): Array<[string, unknown]> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  return [...previous, [value.slice(0, eq).trim(), looseJson(value.slice(eq + 1))]];
}

/** Commander parser for a JSON object argument (`--data '{"plan":"pro"}'`). */
function jsonObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidArgumentError('expected a JSON object, like {"plan":"pro"}');
  }
  return parsed as Record<string, unknown>;
}

/** Copies `--set name=value` pairs into a request body; names that have their own flag are refused. */
export function applySetPairs(
  body: Record<string, unknown>,
  pairs: Array<[string, unknown]> | undefined,
  named: ReadonlySet<string>,
): void {
  for (const [name, value] of pairs ?? []) {
    if (named.has(name)) throw new UsageError(`--set ${name}: use the dedicated flag for ${name}`);
    setOwn(body, name, value);
  }
}

/** A repeatable `--set name=value` (collectPair): the pairs in order, values parsed loosely. */
export const setFlag = (description: string) =>
  flag('--set <name=value>', description, z.array(z.tuple([z.string(), z.unknown()])).optional(), {
    parse: collectPair,
  });

/** `--data '{...}'` (jsonObject): a JSON object. */
export const dataFlag = (description: string) =>
  flag('--data <json>', description, ownRecord().optional(), { parse: jsonObject });
