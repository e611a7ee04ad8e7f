import { describe, expect, it } from 'vitest';
import { CursorSeal } from '../../src/http/cursor-seal.js';

const KEY = 'sk_live_canary_Q7mZ2xK9pL4vN8rT3wY6bC1dF5gH0jS2';

describe('CursorSeal', () => {
  it('hands a cursor without the key out as it came', () => {
    expect(new CursorSeal(KEY).seal('eyJvZmZzZXQiOjUwMDB9')).toBe('eyJvZmZzZXQiOjUwMDB9');
  });

  it('seals a cursor that holds the key (any form), the same way each time, and opens it back exactly', () => {
    const seal = new CursorSeal(KEY);
    for (const raw of [`p2.${KEY}`, `x${KEY.slice(15).toUpperCase()}y`, Buffer.from(KEY).toString('base64')]) {
      const sealed = seal.seal(raw);
      expect(sealed).toMatch(/^cnv-sealed\./);
      expect(sealed.toLowerCase()).not.toContain('q7mz2xk9');
      expect(seal.seal(raw)).toBe(sealed);
      expect(new CursorSeal(KEY).open(sealed)).toBe(raw);
    }
  });

  it('a cursor of the server that looks sealed is sealed too, so it comes back as it was', () => {
    const seal = new CursorSeal(KEY);
    expect(seal.open(seal.seal('cnv-sealed.abc'))).toBe('cnv-sealed.abc');
  });

  it('a cursor sealed under another key is refused, exit 2, saying so', () => {
    const sealed = new CursorSeal(KEY).seal(`p2.${KEY}`);
    expect(() => new CursorSeal('sk_live_other_AAAABBBBCCCCDDDDEEEEFFFF').open(sealed)).toThrow(/another API key/);
  });
});
