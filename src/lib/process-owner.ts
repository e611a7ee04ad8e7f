import { hostname } from 'node:os';
import { isAlive, processStartTicks } from './process-alive.js';

/**
 * The process that owns a file cnv keeps for as long as it runs (an owner lock, a rate lease):
 * what the file holds, as JSON, in this one shape for both.
 */
export interface ProcessOwner {
  pid: number;
  hostname: string;
  /** When the owner wrote the file (ISO 8601). */
  startedAt: string;
  /** The owner's start in clock ticks since boot (Linux), to tell it from a later process given its pid. */
  procStart?: number;
}

/** This process as an owner. */
export function thisProcess(): ProcessOwner {
  const procStart = processStartTicks(process.pid);
  return {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    ...(procStart === undefined ? {} : { procStart }),
  };
}

/**
 * The owner a file's text names as this version writes it (members of its own beside these, as a
 * lock's token, are allowed); undefined for any other text: a file of another format is never
 * judged as if it were one (docs/guarantees.md, "Compatibility").
 */
export function parseOwner(text: string): ProcessOwner | undefined {
  try {
    const { pid, hostname: host, startedAt, procStart } = (JSON.parse(text) ?? {}) as Partial<ProcessOwner>;
    if (!Number.isInteger(pid) || typeof host !== 'string' || typeof startedAt !== 'string') return undefined;
    return { pid: pid as number, hostname: host, startedAt, ...(Number.isSafeInteger(procStart) ? { procStart } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Whether an owner's process still runs: `gone` when it is of this host and its pid is free or
 * taken by another process (another start time); `alive` when it is of this host and the same
 * process; `unknown` for another host, a pid that names no process (0, -1: kill() would reach a
 * whole group) or no start time to compare: the caller judges those by the file's refreshes.
 */
export function ownerLiveness(owner: ProcessOwner): 'alive' | 'gone' | 'unknown' {
  if (owner.hostname !== hostname() || !(owner.pid > 0)) return 'unknown';
  if (!isAlive(owner.pid)) return 'gone';
  const start = owner.procStart === undefined ? undefined : processStartTicks(owner.pid);
  if (start === undefined) return 'unknown';
  return start === owner.procStart ? 'alive' : 'gone';
}
