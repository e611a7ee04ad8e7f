const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A 64-bit hash of a text's UTF-16 units, as 16 hex digits, for telling two versions of one row
 * apart cheaply (it runs for every exported contact). Two lanes, each taking two units a step
 * (one multiply per four units): a step is a bijection of the lane for a given input, so texts
 * of one length that differ in a single place never collide; otherwise about one in 2^64. Not
 * cryptographic: it guards against chance, not against a server choosing a collision.
 */
export function contentHash(text: string): string {
  const n = text.length;
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ n;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a = Math.imul(a ^ (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)), 0x01000193);
    b = Math.imul(b ^ (text.charCodeAt(i + 2) | (text.charCodeAt(i + 3) << 16)), 0x5bd1e995);
  }
  for (; i < n; i++) a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
  return hex(mix(a, 0x85ebca6b)) + hex(mix(b ^ a, 0xc2b2ae35));
}

/** murmur3's finaliser: every bit of the lane reaches every bit of the result. */
function mix(h: number, m: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, m);
  return h ^ (h >>> 13);
}

function hex(n: number): string {
  return HEX[(n >>> 24) & 255] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
}
