import { z } from 'zod';
import { UsageError } from '../errors.js';
import { describeProblem, readJsonDocument } from './json-file.js';

/**
 * The tap's config file (Singer: --config). snake_case as Meltano writes settings. The key and
 * URL come from here only, unless `profile` names a cnv profile to take them from.
 */
const CONFIG = z.looseObject({
  base_url: z.string().url().optional(),
  api_key: z.string().min(1).optional(),
  profile: z.string().min(1).optional(),
  start_date: z
    .union([z.string().datetime({ offset: true }), z.string().date()], {
      error: 'expected an ISO 8601 time (2025-01-01T00:00:00Z) or date (2025-01-01)',
    })
    .optional(),
  page_size: z.number().int().min(1).optional(),
  max_retries: z.number().int().min(0).max(20).optional(),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
});

export interface TapConfig {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  /** ISO 8601: the first run's lower bound. */
  startDate?: string;
  pageSize?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

/** Reads and checks --config FILE: a key and URL, or a profile to read them from. */
export async function readTapConfig(path: string): Promise<TapConfig> {
  const parsed = CONFIG.safeParse(await readJsonDocument('--config', path));
  if (!parsed.success) throw new UsageError(describeProblem('--config', path, parsed.error.issues[0]));
  const c = parsed.data;
  if (!c.profile && (!c.api_key || !c.base_url)) {
    throw new UsageError(
      `--config ${path}: needs api_key and base_url (or profile, the name of a cnv profile to read them from)`,
      'see docs/singer.md, "Settings"',
    );
  }
  return {
    baseUrl: c.base_url,
    apiKey: c.api_key,
    profile: c.profile,
    startDate:
      c.start_date && new Date(c.start_date.length === 10 ? `${c.start_date}T00:00:00Z` : c.start_date).toISOString(),
    pageSize: c.page_size,
    maxRetries: c.max_retries,
    timeoutMs: c.timeout_ms,
  };
}
