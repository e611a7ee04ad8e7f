import { execa } from 'execa';
import { BIN, cleanEnv, type CliResult } from './cli.js';

/** A word the shell reads back as it is. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built binary on a real terminal (a pseudo-terminal made by util-linux `script`), as an
 * operator at a shell would: stdout and stderr are both the terminal, so what is shown only on a
 * terminal (tables, colour, spinners, notes) shows. `stdout` is what the terminal displayed
 * (both streams, CRLF made LF); `stdoutFile` sends stdout to a file instead, stderr staying on the
 * terminal; `pipeTo` pipes stdout into that command (`jq .`, `cat`), which prints on the terminal.
 */
export async function cnvOnTerminal(
  args: string[],
  opts: {
    env?: Record<string, string | undefined>;
    columns?: number;
    rows?: number;
    stdoutFile?: string;
    pipeTo?: string;
    timeoutMs?: number;
  } = {},
): Promise<CliResult> {
  const redirect =
    opts.stdoutFile !== undefined
      ? ` > ${quote(opts.stdoutFile)}`
      : opts.pipeTo !== undefined
        ? ` | ${opts.pipeTo}`
        : '';
  // (Piped, the shell waits for both: no exec.)
  const run = opts.pipeTo === undefined ? 'exec node' : 'node';
  const command = `stty cols ${opts.columns ?? 100} rows ${opts.rows ?? 40}; ${run} ${quote(BIN)} ${args.map(quote).join(' ')}${redirect}`;
  const res = await execa('script', ['-q', '-e', '-c', command, '/dev/null'], {
    reject: false,
    // No pager unless a test names one: a long table would otherwise wait in less for a key.
    env: cleanEnv({ CNV_PAGER: 'cat', ...opts.env }),
    extendEnv: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 60_000,
  });
  return {
    exitCode: res.exitCode ?? -1,
    stdout: String(res.stdout).replace(/\r\n/g, '\n'),
    stderr: String(res.stderr),
  };
}
