import type { z } from 'zod';
import { UsageError } from '../errors.js';

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Validates a command's options at the edge; the first problem becomes a usage error naming its flag. */
export function validateOptions<T extends z.ZodType>(schema: T, opts: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(opts);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue.path[0];
  const flag = typeof key === 'string' ? `--${kebab(key)}` : 'options';
  throw new UsageError(`${flag}: ${issue.message}`);
}
