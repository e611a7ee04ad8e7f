import { endianness } from 'node:os';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

// The text's UTF-16 units are copied (natively) into this buffer and read two units a load:
// charCodeAt over a row's text, a slice of the page's text, cost twice as much (~0.5 µs a row).
const SCRATCH_UNITS = 32 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_UNITS * 2);
const pairs = new Int32Array(scratch.buffer, scratch.byteOffset, SCRATCH_UNITS / 2);
const units = new Uint16Array(scratch.buffer, scratch.byteOffset, SCRATCH_UNITS);
// A load of two units is `first | second << 16` only on a little-endian machine.
const WORD_LOADS = endianness() === 'LE';

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
  const n = text.length;
  if (!WORD_LOADS || n > SCRATCH_UNITS) return unitLanes(text);
  scratch.write(text, 0, 'utf16le');
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ n;
  const steps = n >> 2;
  for (let k = 0, j = 0; j < steps; j++, k += 2) {
    a = Math.imul(a ^ pairs[k], 0x01000193);
    b = Math.imul(b ^ pairs[k + 1], 0x5bd1e995);
  }
  for (let i = steps << 2; i < n; i++) a = Math.imul(a ^ units[i], 0x01000193);
  laneB = b;
  return a;
}

/** `contentLanes` unit by unit: a text longer than the scratch buffer, or a big-endian machine. */
function unitLanes(text: string): number {
  const n = text.length;
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ n;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a = Math.imul(a ^ (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)), 0x01000193);
    b = Math.imul(b ^ (text.charCodeAt(i + 2) | (text.charCodeAt(i + 3) << 16)), 0x5bd1e995);
  }
  for (; i < n; i++) a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
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
