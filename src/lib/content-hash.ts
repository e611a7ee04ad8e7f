import { UnitBuffer, WORD_LOADS } from './unit-buffer.js';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

// The text's UTF-16 units are copied (natively) into this buffer and read two units a load:
// charCodeAt over a row's text, a slice of the page's text, cost twice as much (~0.5 µs a row).
const scratch = new UnitBuffer();

/** The second lane of the last `contentLanes` call (read right after it: no pair is allocated per row). */
export let laneB = 0;

/**
 * The two 32-bit lanes of a text's content hash (the first returned, the second in `laneB`):
 * two lanes, each taking two UTF-16 units a step (one multiply per four units); a step is a
 * bijection of the lane for a given input, so texts of one length that differ in a single place
 * never collide; otherwise about one in 2^64. Not cryptographic: it guards against chance, not
 * against a server choosing a collision. `contentHash` is its text form.
 */
export function contentLanes(text: string): number {
  scratch.put(text, 0);
  return contentLanesAt(scratch, 0, text.length);
}

/** `contentLanes` of the text in units [from, to) of `buffer` (`from` even), read where it is. */
export function contentLanesAt(buffer: UnitBuffer, from: number, to: number): number {
  const { units, pairs } = buffer;
  const n = to - from;
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ n;
  const steps = n >> 2;
  if (WORD_LOADS) {
    for (let k = from >> 1, j = 0; j < steps; j++, k += 2) {
      a = Math.imul(a ^ pairs[k], 0x01000193);
      b = Math.imul(b ^ pairs[k + 1], 0x5bd1e995);
    }
  } else {
    for (let i = from, j = 0; j < steps; j++, i += 4) {
      a = Math.imul(a ^ (units[i] | (units[i + 1] << 16)), 0x01000193);
      b = Math.imul(b ^ (units[i + 2] | (units[i + 3] << 16)), 0x5bd1e995);
    }
  }
  for (let i = from + (steps << 2); i < to; i++) a = Math.imul(a ^ units[i], 0x01000193);
  laneB = b;
  return a;
}

/** A 64-bit hash of a text's UTF-16 units, as 16 hex digits (the lanes of `contentLanes`, finished). */
export function contentHash(text: string): string {
  const a = contentLanes(text);
  return lanesHex(a, laneB);
}

/** The 16 hex digits of two lanes of `contentLanes`. */
export function lanesHex(a: number, b: number): string {
  return hex(mix(a, 0x85ebca6b)) + hex(mix(b ^ a, 0xc2b2ae35));
}

/** murmur3's finaliser: every bit of the lane reaches every bit of the result. */
export function mix(h: number, m: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, m);
  return h ^ (h >>> 13);
}

function hex(n: number): string {
  return HEX[(n >>> 24) & 255] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
}
