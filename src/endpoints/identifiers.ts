import { z } from 'zod';

/** How a request names one contact; the API resolves cnvContactId, then userId, then email. */
export interface ContactIdentifier {
  cnvContactId?: string;
  userId?: string;
  email?: string;
}

export const uuidSchema = z.guid({ message: 'expected a UUID like 7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f' });
// Whitespace (Unicode included) or a control character never belongs in an address.
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/**
 * True unless the text is surely not an email address: whitespace or a control character, no
 * "@", an empty local part or domain, or a domain with an empty label (`a@.com`, `a@b..c`).
 * Everything else (`jörg@example.com`, `user@bücher.de`, `a!b@example.com`, quoted local
 * parts) is left for the API to judge: a stricter local check would make such contacts
 * unreachable by email.
 */
export function isPlausibleEmail(text: string): boolean {
  if (SPACE_OR_CONTROL.test(text)) return false;
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) return false;
  // No empty label: the domain neither starts nor ends with a dot nor holds two in a row
  // (run on every row of a batch file, so without slicing and splitting).
  if (text.charCodeAt(at + 1) === 46 || text.charCodeAt(text.length - 1) === 46) return false;
  return !text.includes('..', at + 1);
}

export const emailSchema = z.string().refine(isPlausibleEmail, { message: 'expected an email address' });
