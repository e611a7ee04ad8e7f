import { tuneEngine } from './engine-flags.js';
import { ownSignals } from './own-signals.js';

export { runtimeTuning } from './engine-flags.js';

/**
 * The process-wide side effects of the cnv executable, applied once by the launcher (bin/cnv.js)
 * after it installed its SIGINT/SIGTERM listeners. `run()` never applies them: a program or a
 * test calling it in-process keeps its process as it was.
 */
export function applyRuntime(env: NodeJS.ProcessEnv): void {
  ownSignals();
  // Set already by the launcher before it compiled the CLI; the same flags again change nothing.
  tuneEngine(env);
}
