import { shellWord } from '../lib/shell-word.js';

// Left out of the command a hint repeats: the key (never printed), a resume of another report
// (replaced), and --max-rows (a resume reads the whole file; the two are refused together).
const DROPPED = ['--api-key', '--resume-from-report', '--max-rows'];

/**
 * The command line that resumes this run from `report`: cnv and the run's own arguments, as a
 * POSIX shell reads them back, with `--resume-from-report REPORT` after the options.
 */
export function resumeCommand(argv: readonly string[], report: string): string {
  const kept: string[] = [];
  let rest: readonly string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest = argv.slice(i);
      break;
    }
    if (DROPPED.includes(arg)) {
      i++;
      continue;
    }
    if (DROPPED.some((flag) => arg.startsWith(`${flag}=`))) continue;
    kept.push(arg);
  }
  return ['cnv', ...kept, '--resume-from-report', report, ...rest].map(shellWord).join(' ');
}
