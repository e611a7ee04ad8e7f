import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { CliError } from '../../errors.js';
import { didYouMean } from '../../cmdutil/suggest.js';

/**
 * A 404 for a path that no endpoint of the table has (`cnv api GET /v2/campaign`) gets a hint
 * naming the closest one that does (`did you mean /v2/campaigns?`). A path the table knows
 * (`/v2/campaigns/{id}` of an id that does not exist) keeps the error as it is: the resource is
 * what is missing. Only after the server answered: `cnv api` sends any path, the table's or not.
 */
export function withPathGuess(err: unknown, method: string, pathname: string): unknown {
  if (!(err instanceof CliError) || !isNotFound(err)) return err;
  const segments = pathname.replace(/\/+$/, '').split('/');
  const templates = [...new Set(Object.values(ENDPOINTS).map((e) => e.path))];
  const same = (template: string, m: string) =>
    Object.values(ENDPOINTS).some((e) => e.path === template && e.method === m);
  const matches = (template: string) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i]);
  };
  if (templates.some(matches)) return err;
  // A template's parameters take the path's own segments where they line up: /v2/campaign/abc -> /v2/campaigns/abc.
  const shown = templates.map((template) => {
    const parts = template.split('/');
    return parts.length === segments.length
      ? parts.map((p, i) => (p.startsWith('{') ? segments[i] : p)).join('/')
      : template;
  });
  const byMethod = shown.filter((_, i) => same(templates[i], method));
  const guess = didYouMean(pathname, byMethod) ?? didYouMean(pathname, shown);
  if (guess === undefined) return err;
  return new CliError(err.message, {
    exitCode: err.exitCode,
    code: err.code,
    hint: guess,
    cause: err,
  });
}

function isNotFound(err: CliError): boolean {
  return (err as { status?: number }).status === 404 || err.code === 'not_found';
}
