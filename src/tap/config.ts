import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { FlattenOptions } from './flatten.js';
import { describeProblem, readJsonDocument } from '../singer/json-file.js';
import {
  CLIENT_SETTINGS,
  clientConfig,
  CREDENTIAL_SETTINGS,
  givenSettings,
  type PluginClientConfig,
} from '../singer/singer-settings.js';
import { readStreamMaps, type StreamMaps } from './stream-maps.js';

const object = z.record(z.string(), z.unknown());

/**
 * The tap's config file (Singer: --config). snake_case as Meltano writes settings. The key and
 * URL come from here only, unless `profile` names a cnv profile to take them from.
 */
const CONFIG = z.object({
  ...CREDENTIAL_SETTINGS,
  start_date: z
    .union([z.string().datetime({ offset: true }), z.string().date()], {
      error: 'expected an ISO 8601 time (2025-01-01T00:00:00Z) or date (2025-01-01)',
    })
    .optional(),
  page_size: z.number().int().min(1).optional(),
  ...CLIENT_SETTINGS,
  stream_maps: object.optional(),
  stream_map_config: object.optional(),
  flattening_enabled: z.boolean().optional(),
  flattening_max_depth: z.number().int().min(0).max(100).optional(),
  flattening_separator: z.string().min(1).optional(),
});

/** The settings the tap reads (--about lists them): every other member draws a warning. */
export const SETTINGS = Object.keys(CONFIG.shape);

/** Settings of the Meltano SDK this tap does not do: refused by name rather than ignored. */
const REFUSED: Record<string, string> = {
  faker_config: 'fake values (faker) are not supported by this tap',
  flattening_max_key_length: 'flattened names are never shortened by this tap',
  batch_config: 'BATCH messages are not supported by this tap',
  metrics_log_level: 'METRIC lines go to stderr at INFO; --quiet drops them',
};

export interface TapConfig extends PluginClientConfig {
  /** ISO 8601: the first run's lower bound. */
  startDate?: string;
  pageSize?: number;
  maps?: StreamMaps;
  flatten?: FlattenOptions;
}

/**
 * Reads and checks --config FILE: a key and URL, or a profile to read them from; stream maps and
 * flattening. A setting the tap does not know draws a warning naming it; one of the SDK's it does
 * not do is refused (exit 2). A null value is no value (as Meltano may write an unset setting).
 */
export async function readTapConfig(path: string, warn: (m: string) => void, signal?: AbortSignal): Promise<TapConfig> {
  const doc = await readJsonDocument('--config', path, signal);
  const { given, unknown } = givenSettings(doc, path, 'tap-cnv', SETTINGS, warn);
  for (const name of Object.keys(given))
    if (Object.hasOwn(REFUSED, name))
      throw new UsageError(`--config ${path}: ${name}: ${REFUSED[name]}`, 'see docs/singer.md', 'unsupported_setting');
  const parsed = CONFIG.safeParse(given);
  if (!parsed.success) throw new UsageError(describeProblem('--config', path, parsed.error.issues[0], given));
  const c = parsed.data;
  const shown = unknown.length > 0 ? ` (it has ${unknown.slice(0, 5).join(', ')})` : '';
  return {
    ...clientConfig(path, c, 'see docs/singer.md, "Settings"', shown),
    startDate:
      c.start_date && new Date(c.start_date.length === 10 ? `${c.start_date}T00:00:00Z` : c.start_date).toISOString(),
    pageSize: c.page_size,
    maps:
      c.stream_maps === undefined && c.stream_map_config === undefined
        ? undefined
        : readStreamMaps(path, c.stream_maps, c.stream_map_config, warn),
    flatten: flattening(path, c),
  };
}

/** flattening_enabled with its depth (required then, as in the SDK); a depth of 0 flattens nothing. */
function flattening(path: string, c: z.output<typeof CONFIG>): FlattenOptions | undefined {
  if (!c.flattening_enabled) return undefined;
  if (c.flattening_max_depth === undefined)
    throw new UsageError(
      `--config ${path}: flattening_enabled: needs flattening_max_depth (1: data's members, data__x)`,
    );
  if (c.flattening_max_depth === 0) return undefined;
  return { maxDepth: c.flattening_max_depth, separator: c.flattening_separator ?? '__' };
}
