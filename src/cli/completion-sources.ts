import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFileSync } from '../lib/regular-file.js';
import type { CompletionSources } from './complete.js';
import { HELP_TOPICS } from './help-topics.js';

/**
 * Profile names and export state keys, read straight from the config directory: a TAB must
 * answer in a few milliseconds and never fail (anything unreadable offers nothing).
 */
export function completionSources(configDir: string): CompletionSources {
  return {
    profiles: () => {
      const config = readJson(join(configDir, 'config.json')) as { profiles?: Record<string, unknown> } | undefined;
      return Object.keys(config?.profiles ?? {});
    },
    stateKeys: () => {
      const dir = join(configDir, 'exports');
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.json'));
      } catch {
        return [];
      }
      // A state file holds `{ "state": { "key", ... } }` (docs/exports.md, "The state").
      return names
        .map((n) => (readJson(join(dir, n)) as { state?: { key?: unknown } } | undefined)?.state?.key)
        .filter((k): k is string => typeof k === 'string');
    },
    helpTopics: Object.keys(HELP_TOPICS),
  };
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readRegularFileSync(path).toString('utf8'));
  } catch {
    return undefined;
  }
}
