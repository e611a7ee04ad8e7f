const LIVE_KEY = /^(sk_live_[A-Za-z0-9]+_)(.+)$/;

/** A secret part shorter than this is not masked alone: it could be an ordinary word. */
const MIN_SECRET_CHARS = 16;

/**
 * Every form of one API key a text may hold, each matched and masked: the whole key and its
 * secret part alone (what follows `sk_live_<id>_`, or the last `_`, when it has at least
 * MIN_SECRET_CHARS characters), each spelled plain, with JSON escapes (`\u0073`, `\/`) or
 * percent-encoded (`%5F`), in any mix. A whole key becomes `sk_live_<id>_****` (`****` for a key
 * of another shape), a secret alone `****`.
 */
export interface KeyForms {
  /** The text with every form masked. */
  mask(text: string): string;
  /** False only when the text surely holds no form (a few substring searches): `mask` is then not needed. */
  mayHold(text: string): boolean;
  /** The longest form, in characters: a streamed text holds back one less than this. */
  readonly maxLength: number;
}

export function keyForms(key: string): KeyForms {
  const live = LIVE_KEY.exec(key);
  const cut = live ? live[1].length : key.lastIndexOf('_') + 1;
  const hasSecret = cut > 0 && key.length - cut >= MIN_SECRET_CHARS;
  const prefix = hasSecret ? key.slice(0, cut) : '';
  const core = hasSecret ? key.slice(cut) : key;
  const masked = live ? `${live[1]}****` : '****';
  const pattern = new RegExp(hasSecret ? `(${spelled(prefix).source})?${spelled(core).source}` : spelled(core).source, 'g');
  // JSON spells `"`, `\` and `/` with a short escape too; every other character needs `\u`.
  const escape = /["\\/]/.test(key) ? '\\' : '\\u';
  return {
    mask: (text) => (text.length === 0 ? text : text.replace(pattern, (...args: unknown[]) => {
      // (match, the prefix group when the pattern has one, offset, text)
      const match = args[0] as string;
      const at = args[args.length - 2] as number;
      const shown = !hasSecret || args[1] !== undefined ? masked : '****';
      // `\\u0073k_…` in JSON is an escaped backslash, then the letters `u0073k_…`: the match took
      // the escape's second half, which must stay, or the text would end in a stray `\` (invalid JSON).
      return match.startsWith('\\') && backslashesBefore(text, at) % 2 === 1 ? `\\${shown}` : shown;
    })),
    mayHold: (text) => text.includes(core) || text.includes(escape) || text.includes('%'),
    maxLength: spelled(key).max,
  };
}

function backslashesBefore(text: string, at: number): number {
  let n = 0;
  while (at - n - 1 >= 0 && text.charCodeAt(at - n - 1) === 92) n++;
  return n;
}

/** A pattern matching `text` with each character in any of its spellings, and the longest match. */
function spelled(text: string): { source: string; max: number } {
  let source = '';
  let max = 0;
  for (const ch of text) {
    const ways = spellings(ch);
    source += ways.length === 1 ? ways[0].pattern : `(?:${ways.map((w) => w.pattern).join('|')})`;
    max += Math.max(...ways.map((w) => w.length));
  }
  return { source, max };
}

function spellings(ch: string): Array<{ pattern: string; length: number }> {
  const ways = [{ pattern: ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), length: ch.length }];
  if (ch.length === 1) {
    ways.push({ pattern: `\\\\u${hexPattern(ch.charCodeAt(0), 4)}`, length: 6 });
    if (ch === '"' || ch === '\\' || ch === '/') ways.push({ pattern: `\\\\\\${ch}`, length: 2 });
    const bytes = Buffer.from(ch, 'utf8');
    ways.push({ pattern: [...bytes].map((b) => `%${hexPattern(b, 2)}`).join(''), length: 3 * bytes.length });
  }
  return ways;
}

/** `n` in hexadecimal with `digits` digits, each letter in either case. */
function hexPattern(n: number, digits: number): string {
  return [...n.toString(16).padStart(digits, '0')].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('');
}
