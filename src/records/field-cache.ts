import { createHash } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { fieldSchema, type FieldDefinition } from '../endpoints/fields.js';
import { allFieldPages } from '../endpoints/field-pages.js';
import { accountIdentity } from '../config/account-identity.js';
import { ApiError, ExitCode, ResponseShapeError, TransientError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { maskKey } from '../redact/redact.js';
import { readRegularFile, writeRegularFileSync } from '../lib/regular-file.js';
import type { LayerDeps } from '../output/layer-deps.js';
import { definitionMap } from './prepare.js';

/** How long cached field definitions are trusted (a field created since shows up after this). */
export const FIELD_CACHE_TTL_MS = 5 * 60_000;

const cacheSchema = z.object({
  version: z.literal(1),
  objectTypes: z.record(z.string(), z.object({ savedAt: z.number(), fields: z.array(fieldSchema()) })),
});
type CacheFile = z.output<typeof cacheSchema>;

/** Field definitions by object type, then by key. */
export type DefinitionsByType = Map<string, Map<string, FieldDefinition>>;

/**
 * The cache file of one account: `<config dir>/cache/fields-<hash>.json`, a hash of the account's
 * identity (src/config/account-identity.ts: the normalised base URL and the key's identity, never
 * the key), so `https://x/` and `https://x` share one.
 */
function fieldCachePath(dir: string, baseUrl: string, apiKey: string): string {
  const id = createHash('sha256').update(accountIdentity(baseUrl, apiKey)).digest('hex').slice(0, 24);
  return join(dir, 'cache', `fields-${id}.json`);
}

/**
 * Where a cnv before the one account identity kept the cache: a hash of the base URL as typed and
 * the masked key id (a hash of the key for a key of another shape). Read when the cache above is
 * missing, never written.
 */
function earlierCachePath(dir: string, baseUrl: string, apiKey: string): string {
  const masked = maskKey(apiKey);
  const keyId = masked === '****' ? createHash('sha256').update(apiKey).digest('hex') : masked;
  const id = createHash('sha256').update(`${baseUrl}\n${keyId}`).digest('hex').slice(0, 24);
  return join(dir, 'cache', `fields-${id}.json`);
}

/** What reading the definitions takes from the command around it (never the CLI's Context). */
export interface FieldCacheDeps extends Pick<LayerDeps, 'clock' | 'signal' | 'notices'> {
  /** The account in force: the cache file is its own. */
  account(): Promise<{ baseUrl: string; apiKey: string }>;
  http(): Promise<HttpClient>;
  /** The config directory, where `cache/` is. */
  configDir: string;
  /** --verbose: say when the cache cannot be written. */
  verbose: boolean;
}

/**
 * The definitions of these object types: from the cache when fresh (and `refresh` is not set),
 * else from GET /v2/fields (all pages), then cached. When they cannot be read (refused, e.g. no
 * permission, off-contract answer, network) this warns once (unless `quiet`) and returns
 * undefined; the caller falls back to sending values as given. With `transientFails` (what the
 * definitions are needed for), a transient failure (network, 5xx, a proxy, a stall) is thrown
 * instead, naming it and its cause.
 */
export async function readFieldDefinitions(
  deps: FieldCacheDeps,
  objectTypes: readonly string[],
  opts: { refresh?: boolean; quiet?: boolean; fallback?: string; transientFails?: string } = {},
): Promise<{ definitions: DefinitionsByType; fromCache: boolean } | undefined> {
  const { baseUrl, apiKey } = await deps.account();
  const path = fieldCachePath(deps.configDir, baseUrl, apiKey);
  const now = deps.clock.now();
  const cache = (await readCache(path)) ?? (await readCache(earlierCachePath(deps.configDir, baseUrl, apiKey)));
  const definitions: DefinitionsByType = new Map();
  const missing: string[] = [];
  for (const type of objectTypes) {
    const entry = cache?.objectTypes[type];
    // A savedAt in the future (a clock set back) counts as stale.
    const fresh = entry && now - entry.savedAt >= 0 && now - entry.savedAt < FIELD_CACHE_TTL_MS;
    if (fresh && !opts.refresh) definitions.set(type, definitionMap(entry.fields));
    else missing.push(type);
  }
  if (missing.length === 0) return { definitions, fromCache: true };

  const listed: Record<string, FieldDefinition[]> = {};
  try {
    const http = await deps.http();
    for (const type of missing) {
      listed[type] = [];
      // A loop, not push(...page): a page of 200,000 definitions would overflow the stack.
      for await (const page of allFieldPages(http, { objectType: type, limit: 1000 }, deps.signal))
        for (const f of page) listed[type].push(f);
    }
  } catch (err) {
    if (!(err instanceof ApiError || err instanceof TransientError || err instanceof ResponseShapeError)) throw err;
    // A run that cannot do without them stops as the transient failure it is (exit 7), the cause in its error line.
    if (err.exitCode === ExitCode.transient && opts.transientFails)
      throw new TransientError(`cannot read the field definitions, ${opts.transientFails}: ${err.message}`, {
        code: err.code,
        hint: err.hint ?? 'run again once the API answers; nothing was sent',
        cause: err,
      });
    if (!opts.quiet) {
      const fallback = opts.fallback ?? '--field values are sent as JSON when they parse, else as strings';
      deps.notices.warn(`could not read the field definitions (${err.code}: ${err.message}); ${fallback}`);
    }
    return undefined;
  }
  const next: CacheFile = { version: 1, objectTypes: { ...cache?.objectTypes } };
  for (const type of missing) {
    definitions.set(type, definitionMap(listed[type]));
    next.objectTypes[type] = { savedAt: now, fields: listed[type] };
  }
  await writeCache(path, next).catch((err: NodeJS.ErrnoException) => {
    // Only a cache: the run goes on; the next one reads the definitions again.
    if (deps.verbose) deps.notices.info(`cannot write the field cache ${path}: ${err.code ?? err.message}`);
  });
  return { definitions, fromCache: false };
}

/**
 * The cache, or undefined when it is missing, unreadable, not what this version writes, or
 * reached through a symlink (cnv follows none it did not create).
 */
async function readCache(path: string): Promise<CacheFile | undefined> {
  try {
    if ((await lstat(dirname(path))).isSymbolicLink()) return undefined;
    // Never through a symlink, and never waited on (a FIFO in its place is no cache).
    const parsed = cacheSchema.safeParse(
      JSON.parse((await readRegularFile(path, { nofollow: true })).toString('utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Written to a new temporary file (0600, never through an existing name) and renamed over: a
 * symbolic link at its path is replaced, never followed.
 */
async function writeCache(path: string, cache: CacheFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  if ((await lstat(dirname(path))).isSymbolicLink()) throw new Error('the cache directory is a symlink');
  writeRegularFileSync(path, JSON.stringify(cache) + '\n', { mode: 0o600, link: 'replace' });
}
