import { InvalidArgumentError } from 'commander';
import { integer } from '../lib/option-values.js';
import { didYouMean, HINT_MARK } from './suggest.js';

/**
 * Commander parser for a page size: any whole number, clamped into min..max as the spec says
 * the API does with out-of-range page sizes (the exports clamp the same way), so `--limit 0`
 * asks for the smallest page instead of failing.
 */
export function pageSize(min: number, max = Number.MAX_SAFE_INTEGER) {
  const whole = integer(Number.MIN_SAFE_INTEGER);
  return (text: string): number => Math.min(max, Math.max(min, whole(text)));
}

/** Commander parser for a case-insensitive choice; returns the canonical spelling (as listed). */
export function caseInsensitiveChoice(values: readonly string[]) {
  const parse = (text: string): string => {
    const found = values.find((v) => v.toLowerCase() === text.trim().toLowerCase());
    if (!found) {
      const hint = didYouMean(text.trim(), values);
      throw new InvalidArgumentError(
        `expected one of ${values.join(', ')} (any case), got "${text}"${hint ? HINT_MARK + hint : ''}`,
      );
    }
    return found;
  };
  // Read by shell completion and the generated reference.
  return Object.assign(parse, { choices: values });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Commander parser for an id argument the API types as a UUID (`AUDIENCE_ID`, `CAMPAIGN_ID`...). */
export function uuidArgument(text: string): string {
  const value = text.trim();
  if (!UUID_RE.test(value))
    throw new InvalidArgumentError(`expected a UUID like 7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f, got "${text}"`);
  return value;
}
