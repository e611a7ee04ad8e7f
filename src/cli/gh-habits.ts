// gh's flags that cnv spells otherwise: `--jq` (cnv's -q is JMESPath) and `--json a,b` (gh's
// field list; cnv's --json is a switch, fields are --columns). A one-line hint for each.
import { shellWord } from '../lib/shell-word.js';
import { jqRewrite } from '../output/query.js';

/** The value given after `flag` (`--jq EXPR` or `--jq=EXPR`) in the raw arguments. */
function valueOf(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
  }
  return undefined;
}

/** The hint for `--jq`: cnv's query flag is -q, and it reads JMESPath, not jq. */
export function jqHint(args: readonly string[]): string {
  const jq = valueOf(args, '--jq');
  const path = jq === undefined ? undefined : jqRewrite(jq);
  const example = path === undefined ? "-q '[].name'" : `-q ${shellWord(path)}`;
  const forJq = path !== undefined && jq !== undefined ? ` for jq's ${jq}` : '';
  return `cnv has no --jq: -q/--query takes a JMESPath expression (not jq), e.g. ${example}${forJq}`;
}

/**
 * The hint for gh's `--json a,b`: when `--json` is followed by a field list that commander then
 * found to be one argument too many. undefined when the arguments do not look like that.
 */
export function jsonFieldsHint(args: readonly string[], hasColumns: boolean): string | undefined {
  const at = args.indexOf('--json');
  const list = at >= 0 ? args[at + 1] : undefined;
  if (list === undefined || !/^[A-Za-z_][\w.]*(,[A-Za-z_][\w.]*)*$/.test(list)) return undefined;
  const fields = list.split(',');
  const pick = hasColumns
    ? `--columns ${list} --json`
    : `--json -q '{${fields.map((f) => `${f.replace(/\W/g, '_')}: ${f}`).join(', ')}}'`;
  const choose = hasColumns ? '--columns' : '-q (JMESPath)';
  return `--json takes no field list here (it is a switch: the whole result as JSON); choose fields with ${choose}: ${pick}`;
}
