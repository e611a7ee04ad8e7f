import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { ExitCode, stdoutError } from '../errors.js';

/** What the build wrote (scripts/bundle.mjs: dist/bundle/launch.json). */
interface LaunchAnswers {
  version: string;
  /** `cnv --help` as the program prints it when stdout is not a terminal. */
  help: string;
}

/**
 * The answer to `cnv --version` (`-V`), and to `cnv --help` (`-h`, `help`) when stdout is not a
 * terminal, as the program gives them, written at build time: printed without loading the
 * program, the start-up of a process that does nothing else. On a terminal the help is laid out
 * for its width, so the program makes it. Undefined for any other command line.
 */
export function launchAnswer(argv: readonly string[], stdoutIsTTY: boolean, file: string): string | undefined {
  if (argv.length !== 1) return undefined;
  const version = argv[0] === '--version' || argv[0] === '-V';
  const help = !stdoutIsTTY && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help');
  if (!version && !help) return undefined;
  let answers: LaunchAnswers;
  try {
    answers = JSON.parse(readFileSync(file, 'utf8')) as LaunchAnswers;
  } catch {
    return undefined; // no build-time answers (an unbundled build): the program answers
  }
  return version ? `${answers.version}\n` : answers.help;
}

/**
 * Prints a launch answer and resolves to the exit code: 0 once it is written, 141 when the
 * reader went away, 8 with an error line naming stdout when it cannot be written (`> /dev/full`).
 */
export function printAnswer(answer: string, stdout: Writable, stderr: Writable): Promise<number> {
  return new Promise((resolve) => {
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      const error = stdoutError(err);
      if (error.exitCode === ExitCode.outputClosed) return resolve(error.exitCode);
      stderr.write(`error: ${error.code}: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`, () =>
        resolve(error.exitCode),
      );
    };
    stdout.on('error', fail);
    stdout.write(answer, (err) => (err ? fail(err) : resolve(ExitCode.ok)));
  });
}
