import { describe, expect, it } from 'vitest';
import { keyMasker, makeRedactor, maskKey } from '../../src/http/redact.js';

describe('maskKey', () => {
  it('keeps the key id and hides the secret', () => {
    expect(maskKey('sk_live_abc123_s3cr3t')).toBe('sk_live_abc123_****');
    expect(maskKey('not-a-key')).toBe('****');
  });
});

describe('makeRedactor', () => {
  it('replaces every occurrence of the known keys, whatever their shape', () => {
    const redact = makeRedactor(['sk_live_k1_secretsecret', 'plainsecretvalue']);
    expect(redact('a sk_live_k1_secretsecret b sk_live_k1_secretsecret plainsecretvalue')).toBe(
      'a sk_live_k1_**** b sk_live_k1_**** ****',
    );
  });

  it('masks any live-looking key even when it was not configured', () => {
    expect(makeRedactor(['xxxx'])('header sk_live_other_ABCDEFGH')).toBe('header sk_live_other_****');
  });
});

describe('keyMasker', () => {
  it('masks a key cut anywhere between pieces, and gives back every other character', () => {
    const key = 'sk_live_k1_secretsecret';
    const text = `a ${key} b ${key}${key} c`;
    for (let size = 1; size <= text.length; size += 3) {
      const masker = keyMasker(key);
      let out = '';
      for (let i = 0; i < text.length; i += size) out += masker.push(text.slice(i, i + size));
      out += masker.end();
      expect(out, `pieces of ${size}`).toBe('a sk_live_k1_**** b sk_live_k1_****sk_live_k1_**** c');
    }
  });

  it('pieces longer than the key, without it, come back whole; a key across their seam is still masked', () => {
    const key = 'sk_live_k1_secretsecret';
    const masker = keyMasker(key);
    const pieces = ['x'.repeat(40), `${'y'.repeat(30)}${key.slice(0, 9)}`, `${key.slice(9)}${'z'.repeat(30)}`, 'w'.repeat(25)];
    const out = pieces.map((p) => masker.push(p)).join('') + masker.end();
    expect(out).toBe(`${'x'.repeat(40)}${'y'.repeat(30)}sk_live_k1_****${'z'.repeat(30)}${'w'.repeat(25)}`);
  });
});
