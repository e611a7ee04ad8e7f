import { tuneEngine } from './engine-flags.js';
import { holdHeapSize } from './heap-hold.js';
import { ownSignals } from './own-signals.js';

/**
 * What the executable lets a run tune in its process once the run knows what it is: the shape
 * of src/context.ts's RuntimeTuning (not imported: src/runtime imports nothing of the CLI).
 */
interface RuntimeTuning {
  /**
   * A long export (or tap sync) starts: hold V8's heap sizes (src/runtime/heap-hold.ts). Returns
   * the check to run after each page.
   */
  holdHeap(): () => void;
}

/**
 * The process-wide side effects of the cnv executable, applied once by the launcher (bin/cnv.js)
 * after it installed its SIGINT/SIGTERM listeners; what it returns is handed to `run()`, the
 * only way a command reaches the engine. `run()` applies nothing itself: a program or a test
 * calling it in-process keeps its process as it was.
 */
export function applyRuntime(env: NodeJS.ProcessEnv): RuntimeTuning {
  ownSignals();
  // Set already by the launcher before it compiled the CLI; the same flags again change nothing.
  tuneEngine(env);
  return { holdHeap: () => holdHeapSize(env) };
}
