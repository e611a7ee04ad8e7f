import { CliError } from '../errors.js';

// The tap's errors say what a Meltano user changes: the tap's settings (api_key, base_url,
// TAP_CNV_API_KEY), never cnv's own flags, variables or commands, and which stream failed.

const KEY_HINT =
  "check api_key in the tap's config (Meltano: `meltano config set tap-cnv api_key`, " +
  "or TAP_CNV_API_KEY in the job's environment)";

/** cnv's words for its flags and commands, as the tap's settings say them. */
const REWORDS: Array<[RegExp, string]> = [
  [/--base-url \(or CNV_BASE_URL, or the profile's URL\)/g, "base_url in the tap's config"],
  [/check the base URL/g, "check base_url in the tap's config"],
  [/--base-url/g, "base_url in the tap's config"],
  [/ \(`cnv doctor` tells whether it is the API\)/g, ''],
  [/; `cnv doctor` checks it/g, ''],
  [/`cnv config set-key` or CNV_API_KEY/g, "api_key in the tap's config, or TAP_CNV_API_KEY"],
  [/--timeout/g, 'timeout_ms'],
  [/--max-retries/g, 'max_retries'],
];

/** A hint or message in the tap's words. */
function tapWords(text: string): string {
  let out = text;
  for (const [from, to] of REWORDS) out = out.replace(from, to);
  return out;
}

/**
 * The error as the tap reports it: the stream named first (when given), the hint in the tap's
 * words (a refused key names api_key and TAP_CNV_API_KEY). An interruption, and anything that
 * is not cnv's own error, goes as it is.
 */
export function streamError(err: unknown, stream: string | undefined, signal?: AbortSignal): unknown {
  if (!(err instanceof CliError) || signal?.aborted) return err;
  const status = (err as { status?: number }).status;
  const hint = status === 401 || err.code === 'unauthorized' ? KEY_HINT : err.hint && tapWords(err.hint);
  const named = stream === undefined || err.message.startsWith(`${stream}`) ? err.message : `${stream}: ${err.message}`;
  const message = tapWords(named);
  if (message === err.message && hint === err.hint) return err;
  const out = new CliError(message, { exitCode: err.exitCode, code: err.code, hint, cause: err });
  if (status !== undefined) Object.assign(out, { status });
  return out;
}
