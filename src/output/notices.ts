/**
 * Lines for the person running cnv, on stderr: what the layers below the commands may say, and
 * how they mask what they did not make (an API key in a server's message). The CLI's
 * implementation escapes control characters and prints nothing with --quiet, but `tell`.
 */
export interface Notices {
  /** A line prefixed `warning:`. */
  warn(message: string): void;
  /** A line as it is. */
  info(message: string): void;
  /**
   * A line as it is, printed with --quiet too: what an export must say in a cron log (`--quiet
   * 2>>log`), where the account's fields changed what it writes (a relabel, a field made or
   * deleted, values sent to `_extra`, a label two fields share).
   */
  tell(line: string): void;
  /** Masks every API key the run knows of. */
  redact(text: string): string;
}

/** Where a spinner may draw, and in which colours; none when progress display is not allowed (not a terminal, --quiet, CI). */
export interface ProgressDisplay {
  stream: NodeJS.WritableStream;
  color: boolean;
}
