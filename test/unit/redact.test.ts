import { describe, expect, it } from 'vitest';
import { keyWatch, makeRedactor, maskKey } from '../../src/redact/redact.js';

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

describe('keyWatch', () => {
  it('finds a key cut anywhere between pieces, and only the pieces around it', () => {
    const key = 'sk_live_k1_secretsecret';
    const text = `${'x'.repeat(80)} ${key} ${'y'.repeat(80)}`;
    const at = text.indexOf(key);
    for (let size = 5; size <= text.length; size += 7) {
      const watch = keyWatch(key);
      const flagged: number[] = [];
      for (let i = 0; i < text.length; i += size) if (watch.mayHold(text.slice(i, i + size))) flagged.push(i);
      // The piece where the key ends is flagged (a form cut in two is found at the second piece).
      const end = at + key.length - 1;
      expect(flagged, `pieces of ${size}`).toContain(end - (end % size));
      for (const i of flagged) expect(i + size > at - 80 && i < at + key.length + 80, `piece at ${i}`).toBe(true);
    }
  });

  it('probes for a base64 form by its longest run of letters and digits: 8 of them alone are no sign', () => {
    const key = 'sk_live_k1_4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c';
    const encoded = Buffer.from(key.slice(11)).toString('base64');
    expect(keyWatch(key).mayHold(`"label":"${encoded.slice(0, 8)}"`)).toBe(false);
    for (const alphabet of ['base64', 'base64url'] as const) {
      const text = `"label":"${Buffer.from(`user:${key}`).toString(alphabet)}"`;
      expect(keyWatch(key).mayHold(text), alphabet).toBe(true);
      expect(keyWatch(key).mask(text), alphabet).toContain('****');
    }
  });

  it('masks a whole text', () => {
    const watch = keyWatch('sk_live_k1_secretsecret');
    expect(watch.mask('{"a":"sk_live_k1_secretsecret"}')).toBe('{"a":"sk_live_k1_****"}');
    expect(watch.mask('{"a":"b"}')).toBe('{"a":"b"}');
  });
});

describe('every form of the key (src/redact/key-forms.ts)', () => {
  const key = 'sk_live_canary_ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';
  const secret = 'ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';
  // Spellings a server may echo: JSON escapes (any character, any case of hex), percent-encoding, and a mix.
  const hex = (c: string, digits: number, upper: boolean) =>
    c.charCodeAt(0).toString(16).padStart(digits, '0')[upper ? 'toUpperCase' : 'toLowerCase']();
  const jsonEscaped = (s: string, every = 1, upper = false) =>
    [...s].map((c, i) => (i % every === 0 ? `\\u${hex(c, 4, upper)}` : c)).join('');
  const percent = (s: string, every = 1, upper = true) =>
    [...s].map((c, i) => (i % every === 0 ? `%${hex(c, 2, upper)}` : c)).join('');
  const forms: Array<[string, string, string]> = [
    ['the whole key', key, 'sk_live_canary_****'],
    ['the secret alone', secret, '****'],
    ['the whole key, JSON-escaped', jsonEscaped(key), 'sk_live_canary_****'],
    ['the secret alone, JSON-escaped (some characters, upper-case hex)', jsonEscaped(secret, 3, true), '****'],
    ['the whole key, percent-encoded', percent(key), 'sk_live_canary_****'],
    ['the secret alone, percent-encoded (every other character, lower-case hex)', percent(secret, 2, false), '****'],
    [
      'the whole key, escaped prefix and encoded secret',
      jsonEscaped('sk_live_canary_') + percent(secret),
      'sk_live_canary_****',
    ],
  ];
  for (const [name, form, shown] of forms) {
    it(`masks ${name}: in one text, and streamed in pieces of any size`, () => {
      const text = `a ${form} b "${form}" ${form}${form} c`;
      const expected = `a ${shown} b "${shown}" ${shown}${shown} c`;
      expect(makeRedactor([key])(text)).toBe(expected);
      expect(keyWatch(key).mask(text)).toBe(expected);
      // Streamed (an export page): some piece is seen to hold a form, whatever the cut.
      for (const size of [1, 2, 7, 50, 1000]) {
        const watch = keyWatch(key);
        let flagged = false;
        for (let i = 0; i < text.length; i += size) flagged = watch.mayHold(text.slice(i, i + size)) || flagged;
        expect(flagged, `pieces of ${size}`).toBe(true);
      }
    });
  }

  it('JSON text stays JSON: a match that starts inside an escaped backslash (\\\\u0073k_…) keeps that backslash', () => {
    // A value holding a backslash, then the letters u0073k_live_…: JSON writes the backslash as \\.
    const text = JSON.stringify({ lastName: `x\\u0073k_live_canary_${secret} y` });
    expect(text).toContain('x\\\\u0073k_live');
    const masked = makeRedactor([key])(text);
    expect(() => JSON.parse(masked)).not.toThrow();
    expect(masked).not.toContain(secret);
  });

  it('a short last segment is no secret: only the whole key is masked then', () => {
    const redact = makeRedactor(['sk_live_k1_short']);
    expect(redact('sk_live_k1_short and short alone')).toBe('sk_live_k1_**** and short alone');
  });

  it('a key of another shape: its part after the last "_" when long enough, and escaped forms; text without a form is left as it is', () => {
    const odd = 'vendor-key_0123456789abcdefXYZ';
    const redact = makeRedactor([odd]);
    expect(redact(`x ${odd} y 0123456789abcdefXYZ z ${jsonEscaped(odd)}`)).toBe('x **** y **** z ****');
    const plain = 'no key here: 100% sure, caf\\u00e9 and %41';
    expect(redact(plain)).toBe(plain);
  });
});

describe('pieces of the secret: any letter case, hex of its bytes, split into runs of 8 or more (issue 38)', () => {
  const key = 'sk_live_demo_4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c';
  const secret = '4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c';
  const b64key = 'sk_live_canary_ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';
  const b64 = 'ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';
  const hexOf = (s: string) => Buffer.from(s).toString('hex');
  const cases: Array<[string, string, string, string]> = [
    ['the whole key upper-cased', key, key.toUpperCase(), 'SK_LIVE_DEMO_****'],
    ['a mixed-case key lower-cased', b64key, b64key.toLowerCase(), 'sk_live_canary_****'],
    ['a mixed-case key upper-cased', b64key, b64key.toUpperCase(), 'SK_LIVE_CANARY_****'],
    [
      'the secret in swapped case',
      b64key,
      [...b64].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
      '****',
    ],
    ['the whole key as hex of its bytes', key, hexOf(key), `${hexOf('sk_live_demo_')}****`],
    ['the whole key as upper-case hex', key, hexOf(key).toUpperCase(), `${hexOf('sk_live_demo_').toUpperCase()}****`],
    ['the secret alone as hex', b64key, `x-token: ${hexOf(b64)}`, 'x-token: ****'],
    ['split by a space', key, `key ${key.slice(0, 25)} ${key.slice(25)} refused`, 'key sk_live_demo_**** **** refused'],
    ['split by a line break', key, `${secret.slice(0, 16)}\n${secret.slice(16)}`, '****\n****'],
    ['split by \\r\\n and a tab', key, `${secret.slice(0, 11)}\r\n\t${secret.slice(11)}`, '****\r\n\t****'],
    ['shortened with ...', key, `key ${secret.slice(0, 12)}...${secret.slice(-10)}`, 'key ****...****'],
    ['shortened with an ellipsis character', key, `${secret.slice(0, 9)}…${secret.slice(-9)}`, '****…****'],
    [
      'pieces of 8 and of 7: the 8 masked, the 7 (too little to matter) left',
      key,
      `${secret.slice(0, 8)} ${secret.slice(8, 15)}`,
      `**** ${secret.slice(8, 15)}`,
    ],
    [
      'upper-cased and split',
      key,
      `${secret.slice(0, 16).toUpperCase()} ${secret.slice(16).toUpperCase()}`,
      '**** ****',
    ],
    ['inside JSON text', key, `{"message":"bad key ${key.toUpperCase()}"}`, '{"message":"bad key SK_LIVE_DEMO_****"}'],
  ];
  it.each(cases)('%s', (_name, configured, echoed, shown) => {
    expect(makeRedactor([configured])(echoed)).toBe(shown);
  });

  it('text that only looks like it is left alone (UUIDs, words, short runs of the secret)', () => {
    const redact = makeRedactor([key]);
    for (const text of [
      'c1000000-0000-4000-8000-000000000002',
      'hello world',
      `id ${secret.slice(0, 4)}-${secret.slice(4, 8)}`,
      secret.slice(3, 10),
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});
