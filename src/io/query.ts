import { UsageError } from '../errors.js';
import { stringifyJson } from '../lib/exact-number.js';

/** A compiled -q/--query expression: the JSON document in, what it selects out. */
type Query = (data: unknown) => unknown;

const compiled = new Map<string, Query>();
let applications = 0;

/** How many times a query was applied in this process (a command that printed no JSON applied none). */
export function queryApplications(): number {
  return applications;
}

/**
 * Compiles a JMESPath expression (imported only when -q is given, so start-up stays lean). A bad
 * expression is a usage error naming -q, raised before any request is sent.
 */
export async function loadQuery(expression: string): Promise<Query> {
  const known = compiled.get(expression);
  if (known) return known;
  const { compile, TreeInterpreter } = await import('@jmespath-community/jmespath');
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(expression);
  } catch (err) {
    throw new UsageError(`-q/--query: not a valid JMESPath expression "${expression}": ${(err as Error).message}`, jqHint(expression, compile) ?? 'see https://jmespath.org for the syntax, e.g. -q \'[].name\'');
  }
  const query: Query = (data) => {
    applications++;
    try {
      return TreeInterpreter.search(ast, data as never);
    } catch (err) {
      // Evaluation errors (a function given the wrong type) are the expression's fault too.
      throw new UsageError(`-q/--query "${expression}": ${(err as Error).message}`);
    }
  };
  compiled.set(expression, query);
  return query;
}

/**
 * For an expression written as jq (`.data[0]`, `.[] | .name`, `select(...)`): the JMESPath
 * spelling when a plain rewrite compiles, else what differs. Undefined when it does not look like jq.
 */
function jqHint(expression: string, compile: (e: string) => unknown): string | undefined {
  const e = expression.trim();
  const jqish = e.startsWith('.') || /\|\s*\./.test(e) || /\b(select|map|to_entries|keys)\(/.test(e);
  if (!jqish) return undefined;
  const rewritten = e === '.' ? '@' : e
    .replace(/\[\]\s*\|\s*\./g, '[].') // .[] | .name -> [].name
    .replace(/(^|\|\s*)\.(?=[[\w"])/g, '$1') // a leading dot, also after a pipe
    .replace(/\.\[/g, '['); // .a.[0] -> a[0]
  // jq's own operators have no plain rewrite: `//` (a default), `[.x | ...]` (building an array).
  let compiles = !/\b(select|map|to_entries|keys)\(/.test(rewritten) && !e.includes('//') && !/\[\s*\./.test(e);
  try {
    if (compiles) compile(rewritten);
  } catch {
    compiles = false;
  }
  const rules = 'no leading dot (.data[0] is data[0], .[] is [], . is @), a filter is [?name==\'x\'], see https://jmespath.org';
  return compiles ? `-q is JMESPath (as in the AWS CLI), not jq: did you mean -q '${rewritten}'? (${rules})` : `-q is JMESPath (as in the AWS CLI), not jq: ${rules}; or pipe --json into jq`;
}

/** A query `loadQuery` compiled already (every -q is, before its command runs). */
export function compiledQuery(expression: string): Query | undefined {
  return compiled.get(expression);
}

/** A query's result as output text: a string as it is (like gh --jq and jq -r), anything else as JSON. */
export function queryText(value: unknown, compact: boolean): string {
  if (typeof value === 'string') return value + '\n';
  return (compact ? stringifyJson(value ?? null) : stringifyJson(value ?? null, 2)) + '\n';
}
