/**
 * TEST-ONLY hook. With CNV_TEST_CRASH_AT=<step>[:<page>] an export SIGKILLs itself at that step
 * of the commit protocol (on every page, or only on page <page>, counting from 1), so tests
 * can check that a kill at any point loses and repeats nothing. Steps, in protocol order:
 * after-fetch, mid-write (half the page written and fsynced), after-fsync, before-state,
 * after-state. Never set it outside tests.
 */
export const CRASH_STEPS = ['after-fetch', 'mid-write', 'after-fsync', 'before-state', 'after-state'] as const;
export type CrashStep = (typeof CRASH_STEPS)[number];

let armed: { step: CrashStep; page?: number } | undefined;

/** Reads CNV_TEST_CRASH_AT from the command's environment. */
export function armCrashPoints(env: NodeJS.ProcessEnv): void {
  const raw = env.CNV_TEST_CRASH_AT;
  armed = undefined;
  if (!raw) return;
  const [step, page] = raw.split(':');
  if (!(CRASH_STEPS as readonly string[]).includes(step)) return;
  armed = { step: step as CrashStep, page: page ? Number(page) : undefined };
}

/** Whether the hook is set for this step and page; with `kill`, dies there and then. */
export function crashPoint(step: CrashStep, page: number, kill = false): boolean {
  const hit = armed !== undefined && armed.step === step && (armed.page === undefined || armed.page === page);
  if (hit && kill) process.kill(process.pid, 'SIGKILL');
  return hit;
}

/** The page the hooks see for one write of pages `first`..`last` together: the armed one when among them. */
export function crashPage(first: number, last: number): number {
  const page = armed?.page;
  return page !== undefined && page >= first && page <= last ? page : first;
}
