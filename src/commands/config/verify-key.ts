import { checkBaseUrl } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { AuthError, CliError, ExitCode } from '../../errors.js';

const NO_VERIFY = 'or save it unchecked with --no-verify';

/**
 * Checks a key before `config set-key` saves it, as `gh auth login` does: one cheap request,
 * GET /v2/campaigns?limit=1 (no endpoint enablement needed, changes nothing), to the base URL
 * the profile will use (`--base-url`, else CNV_BASE_URL, else the profile's saved one). A key
 * refused (401, 403) is exit 4 and nothing is saved; any other failure keeps its exit code, the
 * hint naming --no-verify. Returns how the key was checked, for the "saved" line.
 */
export async function verifyKey(
  ctx: Context,
  apiKey: string,
  flagUrl: string | undefined,
  savedUrl: string | undefined,
): Promise<string> {
  const envUrl = ctx.env.CNV_BASE_URL || undefined;
  const baseUrl = flagUrl ?? (envUrl ? checkBaseUrl(envUrl, 'CNV_BASE_URL') : savedUrl);
  if (baseUrl === undefined) {
    ctx.warn('the key was not checked: no base URL yet (`cnv config set-url URL`, then `cnv doctor` checks it)');
    return 'not checked (no base URL)';
  }
  ctx.useCredentials({ apiKey, baseUrl });
  try {
    await (await ctx.http()).call(ENDPOINTS.listCampaigns, { query: { limit: 1 }, signal: ctx.signal });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    const status = (err as { status?: number }).status;
    const why = status === undefined ? err.code : `${status} ${err.code}`;
    if (err.exitCode === ExitCode.auth)
      throw new AuthError(
        `the API at ${baseUrl} refused the key (${why}: ${err.message}); it was not saved`,
        `check the key (copied whole? the right account and base URL?), ${NO_VERIFY}`,
        err.code,
      );
    if (err.exitCode === ExitCode.interrupted || err.exitCode === ExitCode.terminated) throw err;
    throw new CliError(`${err.message}; the key was not saved`, {
      exitCode: err.exitCode,
      code: err.code,
      hint: `${err.hint ? `${err.hint}; ` : ''}${NO_VERIFY} (offline)`,
    });
  }
  return `checked: GET /v2/campaigns at ${baseUrl} accepted it`;
}
