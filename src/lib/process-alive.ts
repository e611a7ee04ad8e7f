import { readFileSync } from 'node:fs';

/**
 * Whether a process of this host with that pid exists (EPERM: it does, owned by another user).
 * 0 and negative numbers name no process (kill() would reach a process group: always "alive").
 */
export function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When the process with that pid started, in clock ticks since the machine booted (Linux:
 * `/proc/<pid>/stat`, field 22); undefined where that cannot be read (another system, a /proc
 * that hides other users' processes). Two processes that had one pid one after the other (a
 * reboot, a container restart) have different start times; no wall clock is involved.
 */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command name, may hold spaces and parentheses: count from after its last ')'.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isSafeInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}
