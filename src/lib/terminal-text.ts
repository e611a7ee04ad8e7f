// C0 controls (ESC starts colour and cursor sequences, OSC retitles the window or writes links,
// CR overwrites a line), DEL, C1 controls (0x9b is a one-byte CSI), the line separators and the
// bidi controls that reorder what a line shows.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text made safe for a terminal: every control character, C1 control and bidi override is shown
 * as an escape (`\x1b`, `\r`, `\u202e`) instead of acting on the terminal. A JSON text stays
 * valid JSON (JSON.stringify has escaped C0 already; the rest become `\uXXXX`). `keep` lists
 * characters left as they are (a table cell keeps its line breaks, a log line its tabs).
 * For human-facing output only: JSON, NDJSON and CSV keep the data exact.
 */
export function escapeControl(text: string, keep = ''): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (ch) => {
    if (keep.includes(ch)) return ch;
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    // C0 as `\x1b`; the rest as `\u009b`, which is also a valid escape inside a JSON string.
    return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
