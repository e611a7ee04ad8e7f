/**
 * TEST-ONLY hook. With CNV_TEST_CRASH_AT=<step>[:<page>] an export SIGKILLs itself at that step
 * of the commit protocol (on every page, or only on page <page>, counting from 1), so tests
 * can check that a kill at any point loses and repeats nothing. Steps, in protocol order:
 * after-fetch, mid-write (half the page written and fsynced), after-fsync, before-state,
 * after-state. Never set it outside tests.
 */
export const CRASH_STEPS = ['after-fetch', 'mid-write', 'after-fsync', 'before-state', 'after-state'] as const;
type CrashStep = (typeof CRASH_STEPS)[number];

/** Where a run may be killed (tests only): made once from the environment by the export command and passed in its options. */
export interface CrashHook {
  /** Whether the hook is set for this step and page; with `kill`, dies there and then. */
  at(step: CrashStep, page: number, kill?: boolean): boolean;
  /** The page the hooks see for one write of pages `first`..`last` together: the armed one when among them. */
  page(first: number, last: number): number;
}

/** No crash points (every run outside the crash tests). */
export const NO_CRASH: CrashHook = { at: () => false, page: (first) => first };

/** Reads CNV_TEST_CRASH_AT from the command's environment. */
export function crashHookFromEnv(env: NodeJS.ProcessEnv): CrashHook {
  const raw = env.CNV_TEST_CRASH_AT;
  if (!raw) return NO_CRASH;
  const [name, pageText] = raw.split(':');
  if (!(CRASH_STEPS as readonly string[]).includes(name)) return NO_CRASH;
  const step = name as CrashStep;
  const armed = pageText ? Number(pageText) : undefined;
  return {
    at(at, page, kill = false) {
      const hit = at === step && (armed === undefined || armed === page);
      if (hit && kill) process.kill(process.pid, 'SIGKILL');
      return hit;
    },
    page: (first, last) => (armed !== undefined && armed >= first && armed <= last ? armed : first),
  };
}
