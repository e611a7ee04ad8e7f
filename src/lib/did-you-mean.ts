/** Edit distance (Damerau: a swap of two neighbours counts as one edit). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidates closest to `input` (case-insensitive): a close spelling (at most a third of
 * the word wrong), or one the input is a part of (`OPEN` -> `EMAIL_OPEN`). Candidates are
 * canonical names: callers map aliases to the name they stand for before asking.
 */
export function suggest(input: string, candidates: readonly string[]): string[] {
  const needle = input.toLowerCase();
  if (needle === '') return [];
  let best = Infinity;
  let found: string[] = [];
  for (const candidate of new Set(candidates)) {
    const hay = candidate.toLowerCase();
    let distance = editDistance(needle, hay);
    if (distance > Math.max(1, Math.floor(hay.length / 3))) {
      // A part of the word, at a word boundary (`open` in `email_open`), counts as close.
      const parts = hay.split(/[-_\s]+/);
      distance =
        needle.length >= 3 && parts.some((p) => p === needle || (p.length > 3 && p.startsWith(needle)))
          ? hay.length
          : Infinity;
    }
    if (distance < best) [best, found] = [distance, [candidate]];
    else if (distance === best && distance !== Infinity) found.push(candidate);
  }
  return found;
}

/** `did you mean X?` / `did you mean X or Y?` for up to three names, or undefined for none. */
export function guessText(names: readonly string[]): string | undefined {
  const found = [...new Set(names)].slice(0, 3);
  if (found.length === 0) return undefined;
  return `did you mean ${found.length === 1 ? found[0] : `${found.slice(0, -1).join(', ')} or ${found[found.length - 1]}`}?`;
}

/** `did you mean X?` for the candidates closest to `input`, or undefined. */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  return guessText(suggest(input, candidates));
}
