import { existsSync, lstatSync, rmSync } from 'node:fs';
import type { ExportDeps } from '../exporter/export-deps.js';
import { fileIdOf } from '../exporter/file-check.js';
import { releaseFile } from '../exporter/file-owner.js';
import { ExportStateStore } from '../exporter/state-store.js';
import { snapshotFile } from './snapshot.js';

/**
 * After a refresh that failed (under the sync's lock): when the snapshot has no export state,
 * nothing was ever committed to it (a first run refused on input, or stopped before its first
 * page), so its file holds nothing a state vouches for: it is removed, with the record of which
 * state writes it, and a failed first run leaves nothing behind. A special file there (which the
 * refresh refused) is left as it is.
 */
export async function discardUncommittedSnapshot(deps: Pick<ExportDeps, 'stateDir'>, key: string): Promise<void> {
  const { path: dir, where } = deps.stateDir;
  try {
    if (existsSync((await ExportStateStore.open(dir, where)).pathOf(key))) return;
    const file = snapshotFile(dir, key);
    const st = lstatSync(file, { bigint: true });
    if (!st.isFile()) return;
    releaseFile(dir, fileIdOf(st), key);
    rmSync(file, { force: true });
  } catch {
    // none there, or not removable: the next run's full refresh empties it anyway (the run's own error stands)
  }
}
