import { UsageError } from '../errors.js';
import { stopOnAbort } from '../files/file-streams.js';
import type { IO } from './io.js';

/**
 * Reads a secret: all of stdin when piped (until `signal`: a writer that stays does not hold
 * SIGINT and SIGTERM off), else one line from a prompt that does not echo.
 */
export async function readSecret(io: IO, prompt: string, signal?: AbortSignal): Promise<string> {
  const { stdin, stderr } = io;
  if (!io.stdinIsTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stopOnAbort(stdin, signal)) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }
  if (!io.stderrIsTTY) throw new UsageError('cannot prompt for the key without a terminal', 'pipe the key on stdin');
  stderr.write(prompt);
  const tty = stdin as NodeJS.ReadStream;
  tty.setRawMode?.(true);
  tty.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      tty.setRawMode?.(false);
      tty.pause();
      tty.off('data', onData);
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    tty.on('data', onData);
  });
}
