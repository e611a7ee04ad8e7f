import { readFileSync } from 'node:fs';

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
