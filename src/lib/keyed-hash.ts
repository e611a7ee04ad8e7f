import { mix } from './content-hash.js';
import type { MemberKeys } from './member-keys.js';
import { found, sumFields } from './row-fields.js';
import { UnitBuffer, WORD_LOADS } from './unit-buffer.js';

// A contact row's content hash that no relabel changes. The export keys a row's `fields` by
// field label; a label changed in the account changes the row's text, not its content. So the
// hash takes the row's text as sent, less its top-level `fields` object, whose members count as
// (key, value) pairs in any order (src/lib/row-fields.ts): a member whose name no key is known
// for counts by its name. The text is read from a natively copied buffer, as `contentLanes` does.

const scratch = new UnitBuffer();

/** The second lane of the last `keyedLanes` call (read right after it). */
export let keyedLaneB = 0;

/**
 * The two 32-bit lanes of a contact row's keyed content hash (the first returned, the second in
 * `keyedLaneB`): as `contentLanes` over the row's text (`{` to `}`), but the members of its
 * top-level `fields` object count as (key, value) pairs, named through `names` (by their label as
 * sent when `names` is undefined or does not know it). Two texts that differ only in the labels
 * of fields `names` maps to the same keys, or in the order of those members, hash alike.
 */
export function keyedLanes(text: string, names: MemberKeys | undefined): number {
  scratch.put(text, 0);
  return keyedLanesAt(scratch, 0, text.length, names);
}

/** `keyedLanes` of the text in units [from, to) of `buffer` (`from` even), read where it is. */
export function keyedLanesAt(buffer: UnitBuffer, from: number, to: number, names: MemberKeys | undefined): number {
  const u = buffer.units.subarray(from, to);
  const p = buffer.pairs.subarray(from >> 1, (to + 1) >> 1);
  const n = to - from;
  if (!sumFields(u, n, names)) return restLanes(u, p, n, n, n, 0, 0);
  return restLanes(u, p, found.open, found.close, n, found.sumA, found.sumB + found.count);
}

/** Lanes of `restLanes` as its two ranges are stepped (module state: no pair allocated per row). */
let stepA = 0;
let stepB = 0;

/**
 * `contentLanes`' steps over u[0, cut) then u[resume, n) (the text less its `fields` object, or
 * all of it when cut = n), then the members' sums folded in.
 */
function restLanes(
  u: Uint16Array,
  p: Int32Array,
  cut: number,
  resume: number,
  n: number,
  foldA: number,
  foldB: number,
): number {
  stepA = 0x811c9dc5;
  stepB = 0x9747b28c ^ (cut + n - resume);
  steps(u, p, 0, cut);
  steps(u, p, resume, n);
  keyedLaneB = stepB ^ mix(foldB, 0x27d4eb2f);
  return stepA ^ mix(foldA, 0x165667b1);
}

/**
 * Steps over u[i, end): four units a step, read two a load where they are aligned (the same sums
 * as unit by unit). Grouped from i whatever its parity: the range after `fields` starts where the
 * labels' lengths put it, and a relabel must not regroup it.
 */
function steps(u: Uint16Array, p: Int32Array, i: number, end: number): void {
  let a = stepA;
  let b = stepB;
  if (WORD_LOADS && (i & 1) === 0) {
    for (let k = i >> 1; i + 3 < end; i += 4, k += 2) {
      a = Math.imul(a ^ p[k], 0x01000193);
      b = Math.imul(b ^ p[k + 1], 0x5bd1e995);
    }
  } else {
    for (; i + 3 < end; i += 4) {
      a = Math.imul(a ^ (u[i] | (u[i + 1] << 16)), 0x01000193);
      b = Math.imul(b ^ (u[i + 2] | (u[i + 3] << 16)), 0x5bd1e995);
    }
  }
  for (; i < end; i++) a = Math.imul(a ^ u[i], 0x01000193);
  stepA = a;
  stepB = b;
}
