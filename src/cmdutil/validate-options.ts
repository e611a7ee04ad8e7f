import type { CommandOptions } from './flags.js';
import { UsageError } from '../errors.js';

// Apart from flags.ts, which builds schemas with zod: the program validates every command's
// options with this at start-up, and importing zod's values here would load zod for `--help` too.

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Validates a command's options at the edge (the command's own, and the global ones its schema
 * reads): a cross-flag rule's UsageError as it was thrown; any other first problem a usage
 * error naming its flag.
 */
export function validateOptions<T>(options: CommandOptions<T>, values: Record<string, unknown>): T {
  const parsed = options.schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const usage = issue.code === 'custom' ? (issue.params as { usage?: unknown } | undefined)?.usage : undefined;
  if (usage instanceof UsageError) throw usage;
  const key = issue.path[0];
  const name = typeof key === 'string' ? `--${kebab(key)}` : 'options';
  throw new UsageError(`${name}: ${issue.message}`);
}
