import { describe, expect, it } from 'vitest';
import { emailSchema, isPlausibleEmail } from '../../src/endpoints/identifiers.js';

// Local email checks refuse only what is surely malformed; the server judges the rest.
describe('isPlausibleEmail', () => {
  it.each([
    'jörg@example.com',
    'user@bücher.de',
    'a!b@example.com',
    'ada@example.com',
    '"a@b"@example.com',
    'x+tag@sub.example.co.uk',
    "o'neil@example.com",
    'user@localhost',
  ])('leaves %s to the server', (email) => {
    expect(isPlausibleEmail(email)).toBe(true);
    expect(emailSchema.safeParse(email).success).toBe(true);
  });

  it.each([
    '',
    'plain',
    '@example.com',
    'user@',
    'us er@example.com',
    'user@exa mple.com',
    ' ada@example.com',
    'ada@example.com\n',
    'a\u0000b@example.com',
    'a\tb@example.com',
    'user@.com',
    'user@example..com',
    'user@example.com.',
    'ada\u00a0x@example.com',
  ])('refuses %j locally', (email) => {
    expect(isPlausibleEmail(email)).toBe(false);
    expect(emailSchema.safeParse(email).success).toBe(false);
  });
});
