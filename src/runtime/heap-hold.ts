import { getHeapSpaceStatistics } from 'node:v8';
import { setEngineFlags } from './engine-flags.js';

/** The young generation's size (both halves) that an export of a few pages reaches by itself. */
const YOUNG_GENERATION_HELD_AT = 16 * 2 ** 20;

/**
 * Keeps a long export's memory where a short one's is. Rows stream through, so what is alive is
 * a chunk of the answer and a few rows, page after page; but V8 sizes its heap for short scripts:
 * the young generation doubles once enough has survived in all (however little each time), and
 * what little is promoted, with the dead network buffers it holds, waits for a full collection
 * that a heap given room to grow by default rarely needs. On a million-row export that was
 * ~25 MB more peak memory than on 10,000 rows, for no gain in speed (docs/performance.md).
 * So: full collections once the old generation grows by a fifth, and the young generation may
 * grow as far as a short export lets it (fewer collections), no further. V8 reads both flags
 * when it resizes, so setting them now takes effect. Returns the check to run after each page.
 * Best effort and process-wide (an export is the process's one job): if a later V8 ignores either
 * flag, memory is what it was before, nothing else changes. Only the executable holds the heap
 * (`applyRuntime` hands this to the run); an export run in-process leaves its process's V8 alone.
 */
export function holdHeapSize(env: NodeJS.ProcessEnv): () => void {
  // CNV_RUNTIME_TUNING=off (every process-wide tuning) or CNV_HEAP_HOLD=off (this one, for the
  // bench): V8's own sizing. Measured on 1,000,000 rows: 101 MiB peak with the hold, 137 without.
  if (env.CNV_RUNTIME_TUNING === 'off' || env.CNV_HEAP_HOLD === 'off') return () => {};
  setEngineFlags('--heap-growing-percent=20');
  let held = false;
  return () => {
    if (held) return;
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (!young || young.space_size < YOUNG_GENERATION_HELD_AT) return;
    setEngineFlags('--semi-space-growth-factor=1');
    held = true;
  };
}
