import { keyForms, type KeyForms } from './key-forms.js';

const KEY_SHAPE = /^sk_live_([A-Za-z0-9]+)_(.+)$/;
const ANY_LIVE_KEY = /sk_live_([A-Za-z0-9]+)_[A-Za-z0-9]{4,}/g;
/** The user information of a URL (`https://user:password@host`), anywhere in a text. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/** The key as it may be shown: `sk_live_<key_id>_****`, or `****` when it has another shape. */
export function maskKey(key: string): string {
  const match = KEY_SHAPE.exec(key);
  return match ? `sk_live_${match[1]}_****` : '****';
}

/**
 * Returns a function that masks every form of the given keys (src/redact/key-forms.ts: whole or
 * its secret alone, plain, JSON-escaped or percent-encoded), and any other live-looking key that
 * slipped into a text (an echoed header, a pasted value).
 */
export function makeRedactor(secrets: Array<string | undefined>): (text: string) => string {
  const keys = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4))];
  let forms: KeyForms[] | undefined;
  return (text) => {
    // Made on first use: a run that prints nothing from a server (most) never needs them.
    forms ??= keys.map((key) => keyForms(key));
    let out = text;
    for (const form of forms) if (form.mayHold(out)) out = form.mask(out);
    return redactUrlCredentials(out.replace(ANY_LIVE_KEY, 'sk_live_$1_****'));
  };
}

/**
 * A URL as it may be shown or stored: a user name and password in it become `***`. For every
 * place that prints or persists a base URL (config show, dry runs, errors, export state).
 */
export function redactUrl(url: string): string {
  return redactUrlCredentials(url);
}

function redactUrlCredentials(text: string): string {
  return text.includes('@') ? text.replace(URL_CREDENTIALS, '$1***@') : text;
}

/** Watches a text that arrives in pieces for the key, and masks the parts of it that may hold it (keyWatch). */
export interface KeyWatch {
  /** Whether this piece (with the end of the one before: a form cut between two) may hold a form of the key. */
  mayHold(piece: string): boolean;
  /** The text with every form of the key masked. */
  mask(text: string): string;
}

/**
 * Watches an export page as it streams for every form of `key` (src/redact/key-forms.ts): the
 * page is read as it came (its cursor goes back to the server unaltered), and each row whose text
 * lay in a piece that may hold the key is masked before it goes anywhere. A form cut between two
 * pieces is found by looking at the last `maxLength - 1` characters of one with the next.
 */
export function keyWatch(key: string): KeyWatch {
  // Pieces of the secret (any case, hex, split) are masked in every text but an export's streamed rows: docs/guarantees.md.
  const forms = keyForms(key, { pieces: false });
  const hold = forms.maxLength - 1;
  let tail = '';
  return {
    mayHold(piece) {
      const may = forms.mayHold(piece) || forms.mayHold(tail + piece.slice(0, hold));
      tail = piece.length >= hold ? piece.slice(piece.length - hold) : (tail + piece).slice(-hold);
      return may;
    },
    mask: (text) => (forms.mayHold(text) ? forms.mask(text) : text),
  };
}
