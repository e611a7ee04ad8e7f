import { createHash } from 'node:crypto';

/**
 * The cursors a run has followed, to tell a cycle from progress. Kept as digests, not as the
 * cursors: a server may hand out cursors of megabytes (4 MB each drove memory to a V8
 * out-of-memory in 38 s when every one was kept); a digest costs ~60 bytes a page whatever
 * the cursor's size. SHA-256: two cursors that differ are never taken for one.
 */
export class CursorTrail {
  private readonly digests = new Set<string>();

  constructor(...cursors: Array<string | null>) {
    for (const cursor of cursors) this.add(cursor);
  }

  has(cursor: string | null): boolean {
    return this.digests.has(digest(cursor));
  }

  add(cursor: string | null): void {
    this.digests.add(digest(cursor));
  }

  /** Cursors followed so far. */
  get size(): number {
    return this.digests.size;
  }
}

// A digest is never empty: the empty key stands for no cursor (null).
function digest(cursor: string | null): string {
  return cursor === null ? '' : createHash('sha256').update(cursor).digest('base64');
}
