import { z } from 'zod';

export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

const paginationSchema = z.object({ nextCursor: z.string().nullable() });

/** `{ data, pagination? }`, with unknown members tolerated. */
export function envelopeSchema<T extends z.ZodType>(data: T, paginated: boolean) {
  return z.looseObject({
    data,
    pagination: paginated ? paginationSchema : paginationSchema.optional(),
  });
}

/** A short, readable list of what did not match, e.g. `data.cnvContactId: expected string`. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join('; ');
}
