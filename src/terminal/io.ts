import type { Readable, Writable } from 'node:stream';
import { fstatSync, readFileSync, readlinkSync } from 'node:fs';

/** The process streams a run may use, and what they are attached to. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** stdout is the process's own terminal, which a pager may take over (set by the launcher only). */
  pagerAllowed?: boolean;
}

/**
 * Where a process stream goes, from its file descriptor (a stream without one, as in tests, is
 * `other`): `pipe`, another program reads it (a FIFO or a socket, as `| jq` and a parent process
 * make); `closed`, the shell closed it (`>&-`), which Node.js answers by opening /dev/null
 * read-write in its place (a shell's `> /dev/null` opens it write-only: that one is `other`, output
 * thrown away on purpose); `other`, a terminal, a file or a device. Linux tells `closed` (/proc).
 */
export function streamTarget(stream: Writable): 'pipe' | 'closed' | 'other' {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return 'other';
  try {
    const stat = fstatSync(fd);
    if (stat.isFIFO() || stat.isSocket()) return 'pipe';
    if (!stat.isCharacterDevice() || readlinkSync(`/proc/self/fd/${fd}`) !== '/dev/null') return 'other';
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
    return flags !== undefined && (parseInt(flags, 8) & 3) === 2 ? 'closed' : 'other';
  } catch {
    return 'other';
  }
}
