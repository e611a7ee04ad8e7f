import { UsageError } from '../errors.js';
import { stringifyJson } from '../lib/exact-number.js';

/** A compiled -q/--query expression: the JSON document in, what it selects out. */
type Query = (data: unknown) => unknown;

const compiled = new Map<string, Query>();
/** The syntax tree of each compiled expression: where a selection of nothing started. */
const trees = new Map<string, unknown>();
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
    throw new UsageError(
      `-q/--query: not a valid JMESPath expression "${expression}": ${(err as Error).message}`,
      jqHint(expression, compile) ?? "see https://jmespath.org for the syntax, e.g. -q '[].name'",
    );
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
  trees.set(expression, ast);
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
  let rewritten = jqRewrite(e);
  try {
    if (rewritten !== undefined) compile(rewritten);
  } catch {
    rewritten = undefined;
  }
  const rules =
    "no leading dot (.data[0] is data[0], .[] is [], . is @), a filter is [?name=='x'], see https://jmespath.org";
  return rewritten !== undefined
    ? `-q is JMESPath (as in the AWS CLI), not jq: did you mean -q '${rewritten}'? (${rules})`
    : `-q is JMESPath (as in the AWS CLI), not jq: ${rules}; or pipe --json into jq`;
}

/**
 * A jq expression's plain JMESPath rewrite (`.[] | .name` is `[].name`, `.data[0]` is
 * `data[0]`, `.` is `@`), unchecked; undefined for jq's own operators, which have none
 * (`select(...)`, `//` a default, `[.x | ...]` building an array).
 */
export function jqRewrite(expression: string): string | undefined {
  const e = expression.trim();
  const rewritten =
    e === '.'
      ? '@'
      : e
          .replace(/\[\]\s*\|\s*\./g, '[].') // .[] | .name -> [].name
          .replace(/(^|\|\s*)\.(?=[[\w"])/g, '$1') // a leading dot, also after a pipe
          .replace(/\.\[/g, '['); // .a.[0] -> a[0]
  const plain = !/\b(select|map|to_entries|keys)\(/.test(rewritten) && !e.includes('//') && !/\[\s*\./.test(e);
  return plain ? rewritten : undefined;
}

/** A query `loadQuery` compiled already (every -q is, before its command runs). */
export function compiledQuery(expression: string): Query | undefined {
  return compiled.get(expression);
}

/**
 * What a compiled query selects from one whole document, as output text. A selection of nothing
 * prints `null` (stdout is never empty when -q was given, so a script's test fails rather than
 * pass on nothing), and `warn` says so when the document lacks the member the query starts from
 * (a typo, or a member of another command's document).
 */
export function documentQueryText(
  expression: string,
  document: unknown,
  compact: boolean,
  warn?: (message: string) => void,
): string {
  const query = compiled.get(expression);
  if (!query) throw new Error(`-q ${expression}: used before it was compiled`);
  const value = query(document);
  if ((value === null || value === undefined) && warn) {
    const why = missingStart(trees.get(expression), document);
    if (why) warn(`-q/--query selected nothing (printed null): ${why}`);
  }
  return queryText(value, compact);
}

/** The member a query starts from (`summary` of `summary.rows`), when the document has no such member; else undefined. */
function missingStart(tree: unknown, document: unknown): string | undefined {
  let node = tree as { type?: string; name?: string; left?: unknown; children?: unknown[] } | undefined;
  // Down the left edge: `a.b`, `a[0]`, `a[].b`, `a[?x].b` start from `a`.
  while (
    node &&
    ['Subexpression', 'IndexExpression', 'Projection', 'FilterProjection', 'ValueProjection', 'Flatten'].includes(
      node.type ?? '',
    )
  ) {
    node = (node.left ?? (node as { child?: unknown }).child) as typeof node;
  }
  if (node?.type !== 'Field' || node.name === undefined) return undefined;
  if (Array.isArray(document))
    return `the document is an array, which has no member "${node.name}" (select from its items: '[].${node.name}')`;
  if (document === null || typeof document !== 'object') return undefined;
  if (Object.hasOwn(document, node.name)) return undefined;
  const members = Object.keys(document);
  return `the document has no member "${node.name}" (its members: ${members.length ? members.join(', ') : 'none'})`;
}

/** A query's result as output text: a string as it is (like gh --jq and jq -r), anything else as JSON. */
export function queryText(value: unknown, compact: boolean): string {
  if (typeof value === 'string') return value + '\n';
  return (compact ? stringifyJson(value ?? null) : stringifyJson(value ?? null, 2)) + '\n';
}
