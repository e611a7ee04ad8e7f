/** Help topics shown by `cnv help <topic>`. */
export const HELP_TOPICS: Record<string, { summary: string; text: string }> = {
  'exit-codes': {
    summary: 'What each exit code means',
    text: `Exit codes (the same in every command)

  0    success
  1    unexpected internal error (a bug: please report it, with the output of the
       same command run with --debug: its stack trace and requests, key redacted);
       also a run that stopped before its end with nothing left to wait for
  2    usage error or invalid local input (bad flag, malformed file, bad value caught
       before anything was sent, a --profile that does not exist, a question on a
       terminal not answered yes)
  3    the API rejected the request (400-class other than 401/403/404), or answered
       with a body that breaks the contract; or the answer is not the API's at all
       (not_the_api: an HTML page, a redirect, a 404 or 501 without the API's error
       body, a body past the size limits): check --base-url
  4    authentication or permission (401, 403 including export_not_enabled), or no key
  5    not found (404)
  6    partial: a batch or file run finished and some rows failed (see the report),
       or audience sync held removals past --max-removals
  7    transient: server error, rate limit or network failure still failing after
       retries (a gateway's 502/503/504 page too), a Retry-After longer than
       --max-retry-wait (the message says when to try again), a proxy that failed
       (proxy_error, naming it), or another run holds the export lock (or a sync
       job's ledger); try again later
  8    a local file could not be written or read: output (stdout too, as in
       > /dev/full), export state, lock or report (disk full, quota, read-only,
       permission, I/O error; --out in a directory that does not exist; a state or
       config file that is a FIFO); the message names the path; what was committed
       stays committed
  9    --exit-code (contacts, audience, campaigns and records sync): the file and the
       account or ledger differ (rows were, or with --plan would be, sent or removed),
       as git diff --exit-code; 6, 7 and the others win over it
  130  interrupted (SIGINT, Ctrl-C); what was committed stays committed
  141  stdout (or stderr) was closed by its reader (EPIPE), e.g. piped into head;
       no error line is printed
  143  terminated (SIGTERM)
`,
  },
  environment: {
    summary: 'Environment variables cnv reads',
    text: `Environment variables

  CNV_API_KEY      API key; wins over the profile, loses to --api-key
  CNV_BASE_URL     API base URL; wins over the profile, loses to --base-url
  CNV_PROFILE      profile to use when --profile is not given
  CNV_MAX_RETRY_WAIT  longest Retry-After wait honoured, in seconds (default 60);
                   loses to --max-retry-wait
  CNV_CONFIG_DIR   directory of the config file and export state
                   (default: $XDG_CONFIG_HOME/cnv or ~/.config/cnv)
  HTTPS_PROXY      proxy for https:// requests (also https_proxy)
  HTTP_PROXY       proxy for http:// requests (also http_proxy)
  NO_PROXY         hosts that bypass the proxy (also no_proxy)
  CNV_DEBUG        "api": log each request and response in full on stderr, as --debug
                   (URL, headers, bodies cut at 4 KiB, timing; key redacted); any other
                   true value ("1"): as --verbose
  CNV_RATE_SHARE   "off": do not split the account's 195 requests/s with the
                   other cnv processes of this machine (see docs/performance.md)
  CNV_RUNTIME_TUNING  "off": no V8 engine tuning (faster start-up, flatter memory of
                   long exports); for diagnosing an engine problem (docs/startup.md)
  CNV_COMPILE_CACHE  directory of the compiled code kept for faster start-up (an
                   absolute path: a relative one turns the cache off), or "off"
                   (default: $XDG_CACHE_HOME/cnv/compile-cache or ~/.cache/cnv/compile-cache)
  NO_COLOR         any non-empty value turns colour off (as --no-color)
  CI               when set (and not "false" or "0"), no progress display
                   (colour and prompts do not depend on it)
  CNV_PAGER        the pager of a table longer than the terminal (then PAGER;
                   default "less -FRX"; "" or "cat": none, as --no-pager)
`,
  },
};
