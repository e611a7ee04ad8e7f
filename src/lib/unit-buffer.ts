import { endianness } from 'node:os';

/** Whether a load of two UTF-16 units as one Int32 is `first | second << 16` (a little-endian machine). */
export const WORD_LOADS = endianness() === 'LE';

/**
 * Texts as UTF-16 units in one growable buffer, copied natively (charCodeAt over a row's text
 * cost twice as much), read unit by unit (`units`) and two units a load (`pairs`, from an even
 * unit). Typed arrays: their bytes live outside the JS heap, nothing for the collector to copy.
 */
export class UnitBuffer {
  private bytes: Buffer;
  units: Uint16Array;
  pairs: Int32Array;

  constructor(units = 32 * 1024) {
    this.bytes = Buffer.alloc(units * 2);
    this.units = new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, units);
    this.pairs = new Int32Array(this.bytes.buffer, this.bytes.byteOffset, units >> 1);
  }

  /** Copies `text` to units [at, at + text.length) (`at` even), growing the buffer (what is before `at` kept). */
  put(text: string, at: number): void {
    const end = at + text.length;
    if (end + 1 > this.units.length) this.grow(end + 1, at);
    if (WORD_LOADS) this.bytes.write(text, at * 2, 'utf16le');
    else for (let i = 0; i < text.length; i++) this.units[at + i] = text.charCodeAt(i);
  }

  private grow(needed: number, keep: number): void {
    let n = this.units.length * 2;
    while (n < needed) n *= 2;
    const bytes = Buffer.alloc(n * 2);
    this.bytes.copy(bytes, 0, 0, keep * 2);
    this.bytes = bytes;
    this.units = new Uint16Array(bytes.buffer, bytes.byteOffset, n);
    this.pairs = new Int32Array(bytes.buffer, bytes.byteOffset, n >> 1);
  }
}
