import type { Hash } from 'node:crypto';
import { z } from 'zod';
import type { Seal } from '../exporter/export-state.js';

/**
 * Which CONTACT fields existed when the lines from byte `from` on were exported, and their labels then
 * (labels[i] is keys[i]'s).
 */
const segmentSchema = z
  .object({ from: z.number().int().nonnegative(), keys: z.array(z.string()), labels: z.array(z.string()) })
  .refine((s) => s.labels.length === s.keys.length, { message: 'a label for each key' });

const sealedSchema = z.object({
  lines: z.number().int().nonnegative(),
  contacts: z.number().int().nonnegative(),
  fields: z.array(segmentSchema),
});

/** What a snapshot's seal vouches for besides its rows: the lines and contacts indexed, the fields of each part. */
export type Sealed = z.infer<typeof sealedSchema>;
export type Segment = Sealed['fields'][number];

/**
 * The seal of a sync's snapshot: everything the skip decision reads (the rows of the file's
 * committed bytes, fed to `rows`, and the field keys and labels in force when each part of it was
 * fetched: the export keys a line's fields by the labels of then) under one SHA-256. It is
 * committed with the snapshot's export position (src/exporter/export-state.ts, `seal`): one state
 * write holds the file's length, the cursor, the identities delivered and the seal of exactly
 * those bytes. A row or a label edited: the seal does not match, and the snapshot is rebuilt.
 * (The export's own checks, of the file's last 64 KiB and its length, guard its appends; this
 * covers every byte.)
 */
export function sealOf(rows: Hash, key: string, bytes: number, sealed: Sealed): Seal {
  const { lines, contacts, fields } = sealed;
  const sha256 = rows
    .copy()
    .update(`\n${JSON.stringify([key, bytes, lines, contacts, fields])}`)
    .digest('hex');
  return { sha256, of: sealed };
}

/** What a state's seal vouches for, when it is a snapshot's; undefined when there is none or it does not parse. */
export function sealedOf(seal: Seal | undefined): Sealed | undefined {
  const parsed = sealedSchema.safeParse(seal?.of);
  return parsed.success ? parsed.data : undefined;
}
