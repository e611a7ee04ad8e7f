const LIVE_KEY = /^(sk_live_[A-Za-z0-9]+_)(.+)$/;

/** A secret part shorter than this is not masked alone: it could be an ordinary word. */
const MIN_SECRET_CHARS = 16;

/**
 * Every form of one API key a text may hold, each matched and masked: the whole key and its
 * secret part alone (what follows `sk_live_<id>_`, or the last `_`, when it has at least
 * MIN_SECRET_CHARS characters), each spelled plain, with JSON escapes (`\u0073`, `\/`) or
 * percent-encoded (`%5F`), in any mix; and each base64-encoded (standard or URL-safe alphabet,
 * alone or inside a longer encoding, its `+`, `/` and `=` spelled in any of those ways). A whole
 * key becomes `sk_live_<id>_****` (`****` for a key of another shape or encoded), a secret alone `****`.
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
  const encoded = base64Forms(key, hasSecret ? core : undefined);
  const keepEscape = (text: string, match: string, at: number, shown: string) =>
    // `\\u0073k_…` in JSON is an escaped backslash, then the letters `u0073k_…`: the match took
    // the escape's second half, which must stay, or the text would end in a stray `\` (invalid JSON).
    match.startsWith('\\') && backslashesBefore(text, at) % 2 === 1 ? `\\${shown}` : shown;
  return {
    mask: (text) => {
      if (text.length === 0) return text;
      const plain = text.replace(pattern, (...args: unknown[]) => {
        // (match, the prefix group when the pattern has one, offset, text)
        const shown = !hasSecret || args[1] !== undefined ? masked : '****';
        return keepEscape(text, args[0] as string, args[args.length - 2] as number, shown);
      });
      // An encoding keeps its letters and digits plain (an encoder escapes at most `+`, `/`, `=`): found by a probe.
      if (!encoded.probes.some((p) => plain.includes(p))) return plain;
      return plain.replace(encoded.pattern(), (match: string, at: number) => keepEscape(plain, match, at, '****'));
    },
    mayHold: (text) => text.includes(core) || text.includes(escape) || text.includes('%') || encoded.probes.some((p) => text.includes(p)),
    maxLength: Math.max(spelled(key).max, encoded.max),
  };
}

/**
 * The key (and its secret part) base64-encoded, as a server may echo it (a Basic credential, a
 * token it built): standard or URL-safe alphabet. The text may sit anywhere in a longer encoded
 * run, so for each of the three places it can start in a 3-byte group, the characters that
 * depend on it alone are a form; the whole encoding (with or without its `=` padding) is one too.
 * `probes`: 8 letters and digits of each form of the secret (which the whole key's encoding
 * holds too), kept plain by any encoder's spelling: a text without one holds no encoded form.
 */
function base64Forms(key: string, secret: string | undefined): { pattern: () => RegExp; probes: string[]; max: number } {
  const forms = new Set<string>();
  const probes = new Set<string>();
  for (const text of secret === undefined ? [key] : [key, secret]) {
    const bytes = Buffer.from(text, 'utf8');
    const whole = bytes.toString('base64');
    forms.add(whole);
    forms.add(whole.replace(/=+$/, ''));
    for (let skip = 0; skip < 3; skip++) {
      const shifted = Buffer.concat([Buffer.alloc(skip), bytes]).toString('base64');
      // Groups that hold only the text's bytes: after the one the `skip` bytes share, up to the last whole one.
      const own = shifted.slice(skip === 0 ? 0 : 4, Math.floor((skip + bytes.length) / 3) * 4);
      if (own.length < 8) continue;
      forms.add(own);
      // The secret's forms sit in the whole key's encoding too: probing for them finds both.
      if (text === (secret ?? key)) probes.add(/[A-Za-z0-9]{8}/.exec(own)?.[0] ?? '');
    }
  }
  const all = [...forms].flatMap((f) => [f, f.replace(/\+/g, '-').replace(/\//g, '_')]);
  const unique = [...new Set(all)].sort((a, b) => b.length - a.length);
  // Built when a probe first finds one (rarely): the pattern of every spelling of every form is
  // large, and making it cost each run ~10 ms of start-up.
  let pattern: RegExp | undefined;
  return {
    pattern: () => (pattern ??= new RegExp(unique.map((f) => spelled(f).source).join('|'), 'g')),
    probes: [...probes],
    // Base64 is ASCII: each character's longest spelling is its \uXXXX escape, 6 characters.
    max: unique[0].length * 6,
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
