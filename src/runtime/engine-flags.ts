import { setFlagsFromString } from 'node:v8';

/**
 * Whether cnv may tune the V8 engine for itself (the `--liftoff-only` flag here, the heap limits
 * of a long export). `CNV_RUNTIME_TUNING=off` turns every such tuning off; required wiring
 * (signal ownership, the undici prototype methods) stays, as cnv does not work without it.
 */
function runtimeTuning(env: NodeJS.ProcessEnv): boolean {
  return env.CNV_RUNTIME_TUNING?.trim().toLowerCase() !== 'off';
}

/**
 * The V8 flags of the whole run. Set by the launcher before it compiles the CLI: a code cache
 * records the flags it was made under, and V8 refuses it under others (src/runtime/load-bundle.ts).
 */
export function tuneEngine(env: NodeJS.ProcessEnv): void {
  if (!runtimeTuning(env)) return;
  // undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it at once with its
  // baseline compiler, then optimises it again in the background, and a process cannot exit
  // before that background job is done: ~130 ms added to every short command (measured with
  // strace: the main thread waits on the compiler thread at exit). The baseline code parses
  // headers fast enough (bodies are not parsed, only framed); keep it. Takes effect for what is
  // compiled afterwards: llhttp is compiled on the first connection.
  setFlagsFromString('--liftoff-only');
}

const beforeChange: Array<() => void> = [];

/**
 * Runs `fn` once, just before the run changes V8's flags (the launcher saves the code cache
 * then: a cache records the flags it was made under, and the next run starts without these).
 */
export function beforeEngineFlagsChange(fn: () => void): void {
  beforeChange.push(fn);
}

/** Sets V8 flags mid-run (an export's heap sizing), after the hooks above. */
export function setEngineFlags(flags: string): void {
  for (const fn of beforeChange.splice(0)) fn();
  setFlagsFromString(flags);
}
