const LIVE_KEY = /^(sk_live_[A-Za-z0-9]+_)(.+)$/;

/** A secret part shorter than this is not masked alone: it could be an ordinary word. */
const MIN_SECRET_CHARS = 16;

/**
 * The shortest run of the secret's characters masked wherever it stands (docs/guarantees.md):
 * a server that wraps the key, splits it with spaces or shortens it with `...` shows pieces; a
 * piece this long is masked, a shorter one gives too little of the secret to matter.
 */
const PIECE_CHARS = 8;

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

/**
 * `pieces` (the default): also every run of PIECE_CHARS or more characters of the secret, in any
 * letter case, plain or as hexadecimal of its bytes (secretPieces). Off for an export's streamed
 * pages (keyWatch), where the probe runs over every byte of every page.
 */
export function keyForms(key: string, opts: { pieces?: boolean } = {}): KeyForms {
  const live = LIVE_KEY.exec(key);
  const cut = live ? live[1].length : key.lastIndexOf('_') + 1;
  const hasSecret = cut > 0 && key.length - cut >= MIN_SECRET_CHARS;
  const prefix = hasSecret ? key.slice(0, cut) : '';
  const core = hasSecret ? key.slice(cut) : key;
  // Pieces of the secret; of a key of another shape, of the whole key (a live key's short secret has none).
  const pieceOf = hasSecret ? core : live || key.includes('_') ? '' : key;
  const pieces = opts.pieces !== false && pieceOf.length >= MIN_SECRET_CHARS ? secretPieces(pieceOf) : undefined;
  const masked = live ? `${live[1]}****` : '****';
  // Built when a text may hold the key (most never do): spelling each character costs start-up.
  let keyPattern: RegExp | undefined;
  const pattern = () =>
    (keyPattern ??= new RegExp(
      hasSecret ? `(${spelled(prefix).source})?${spelled(core).source}` : spelled(core).source,
      'g',
    ));
  let maxLength: number | undefined;
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
      const plain = text.replace(pattern(), (...args: unknown[]) => {
        // (match, the prefix group when the pattern has one, offset, text)
        const shown = !hasSecret || args[1] !== undefined ? masked : '****';
        return keepEscape(text, args[0] as string, args[args.length - 2] as number, shown);
      });
      // An encoding keeps its letters and digits plain (an encoder escapes at most `+`, `/`, `=`): found by a probe.
      const decoded = encoded.probes.some((p) => plain.includes(p))
        ? plain.replace(encoded.pattern(), (match: string, at: number) => keepEscape(plain, match, at, '****'))
        : plain;
      return pieces?.mayHold(decoded) ? pieces.mask(decoded) : decoded;
    },
    mayHold: (text) =>
      text.includes(core) ||
      text.includes(escape) ||
      text.includes('%') ||
      encoded.probes.some((p) => text.includes(p)) ||
      (pieces?.mayHold(text) ?? false),
    get maxLength() {
      return (maxLength ??= Math.max(spelled(key).max, encoded.max));
    },
  };
}

/**
 * The key (and its secret part) base64-encoded, as a server may echo it (a Basic credential, a
 * token it built): standard or URL-safe alphabet. The text may sit anywhere in a longer encoded
 * run, so for each of the three places it can start in a 3-byte group, the characters that
 * depend on it alone are a form; the whole encoding (with or without its `=` padding) is one too.
 * `probes`: the longest run of letters and digits of each form of the secret (which the whole
 * key's encoding holds too), kept plain by any encoder's spelling: a text without one holds no
 * encoded form.
 */
function base64Forms(
  key: string,
  secret: string | undefined,
): { pattern: () => RegExp; probes: string[]; max: number } {
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
      if (text === (secret ?? key)) probes.add(alphanumericProbe(own));
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

/**
 * A form's longest run of letters and digits (the two base64 alphabets spell them alike, and an
 * encoder leaves them plain): every text holding the form holds it. The longest, as every page of
 * an export is probed and `includes` skips further the longer its needle (100 MB of rows: 40 ms
 * for 8 characters, 9 for 32). '' (every text may hold it) when no run is 8 long.
 */
function alphanumericProbe(form: string): string {
  let longest = '';
  for (const run of form.match(/[A-Za-z0-9]+/g) ?? []) if (run.length > longest.length) longest = run;
  return longest.length >= 8 ? longest : '';
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
  return [...n.toString(16).padStart(digits, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

/**
 * Every run of PIECE_CHARS or more characters of `secret`, in any letter case, spelled plain or
 * as the hexadecimal of its bytes (two digits a byte, either case): such a run becomes `****`,
 * however the text around it splits the secret (a space, a line break, `...`). A run starts at
 * the leftmost place a piece matches and takes every further character that goes on with the
 * secret. `mayHold` probes for the aligned quarter-pieces (4 characters, 8 hex digits) that any
 * piece holds: a text without one holds none.
 */
function secretPieces(secret: string): { mayHold(text: string): boolean; mask(text: string): string } {
  const plain = secret.toLowerCase();
  const hex = Buffer.from(secret, 'utf8').toString('hex');
  const windows = (of: string, size: number, step: number) =>
    Array.from({ length: Math.floor((of.length - size) / step) + 1 }, (_, i) => of.slice(i * step, i * step + size));
  const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const probe = new RegExp(
    [...windows(plain, PIECE_CHARS / 2, PIECE_CHARS / 2), ...windows(hex, PIECE_CHARS, PIECE_CHARS)]
      .map(quote)
      .join('|'),
    'i',
  );
  // Hex pieces first: a hex run is longer than the plain run its digits could also spell.
  const pieces = [...windows(hex, 2 * PIECE_CHARS, 2), ...windows(plain, PIECE_CHARS, 1)];
  let pattern: RegExp | undefined;
  return {
    mayHold: (text) => probe.test(text),
    mask: (text) => {
      const find = (pattern ??= new RegExp(pieces.map(quote).join('|'), 'gi'));
      find.lastIndex = 0;
      let out = '';
      let from = 0;
      for (let m = find.exec(text); m; m = find.exec(text)) {
        const piece = m[0].toLowerCase();
        const source = piece.length === 2 * PIECE_CHARS && hex.includes(piece) ? hex : plain;
        let end = m.index + piece.length;
        for (
          let at = source.indexOf(piece) + piece.length;
          at < source.length && text[end]?.toLowerCase() === source[at];
          at++
        )
          end++;
        out += `${text.slice(from, m.index)}****`;
        from = end;
        find.lastIndex = end;
      }
      return from === 0 ? text : out + text.slice(from);
    },
  };
}
