import { UsageError } from '../errors.js';

/** A compiled -q/--query expression: the JSON document in, what it selects out. */
export type Query = (data: unknown) => unknown;

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
    throw new UsageError(`-q/--query: not a valid JMESPath expression "${expression}": ${(err as Error).message}`, 'see https://jmespath.org for the syntax, e.g. -q \'[].name\'');
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

/** A query `loadQuery` compiled already (every -q is, before its command runs). */
export function compiledQuery(expression: string): Query | undefined {
  return compiled.get(expression);
}

/** A query's result as output text: a string as it is (like gh --jq and jq -r), anything else as JSON. */
export function queryText(value: unknown, compact: boolean): string {
  if (typeof value === 'string') return value + '\n';
  return (compact ? JSON.stringify(value ?? null) : JSON.stringify(value ?? null, null, 2)) + '\n';
}
