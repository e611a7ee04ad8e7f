import type { Command } from 'commander';
import { z } from 'zod';
import { emailSchema, uuidSchema, type ContactIdentifier } from '../api/identifiers.js';
import { UsageError } from '../errors.js';

export type IdentifierKind = 'contactId' | 'userId' | 'email';

const FLAGS: Record<IdentifierKind, [string, string]> = {
  contactId: ['--contact-id <uuid>', 'the contact by its cnvContactId'],
  userId: ['--user-id <id>', 'the contact by your external user id'],
  email: ['--email <address>', 'the contact by email (the most recently updated one when several share it)'],
};

/** The identifier flags as commander produces them (each command declares the ones it takes). */
export const identifierOptionShape = {
  contactId: z.string().optional(),
  userId: z.string().optional(),
  email: z.string().optional(),
};

/** Adds the identifier flags a command accepts, in the API's precedence order. */
export function addIdentifierOptions(cmd: Command, kinds: IdentifierKind[] = ['contactId', 'userId', 'email']): Command {
  for (const kind of kinds) cmd.option(...FLAGS[kind]);
  return cmd;
}

/**
 * Reads and checks the identifier flags; at least one is required. With `warn`, several given
 * are a warning: the API resolves cnvContactId, then userId, then email, so the later ones
 * play no part in finding the contact (and may name another one).
 */
export function identifierFrom(
  opts: Partial<Record<IdentifierKind, string>>,
  kinds: IdentifierKind[] = ['contactId', 'userId', 'email'],
  warn?: (message: string) => void,
): ContactIdentifier {
  const id: ContactIdentifier = {};
  if (kinds.includes('contactId') && opts.contactId !== undefined) {
    const parsed = uuidSchema.safeParse(opts.contactId);
    if (!parsed.success) throw new UsageError(`--contact-id: ${parsed.error.issues[0].message}, got "${opts.contactId}"`, undefined, 'invalid_request');
    id.cnvContactId = parsed.data;
  }
  if (kinds.includes('userId') && opts.userId !== undefined) {
    if (opts.userId.trim() === '') throw new UsageError('--user-id: must not be empty', undefined, 'missing_identifier');
    id.userId = opts.userId;
  }
  if (kinds.includes('email') && opts.email !== undefined) {
    const parsed = emailSchema.safeParse(opts.email);
    if (!parsed.success) throw new UsageError(`--email: ${parsed.error.issues[0].message}, got "${opts.email}"`, undefined, 'invalid_email');
    id.email = parsed.data;
  }
  if (Object.keys(id).length === 0) {
    const flags = kinds.map((k) => FLAGS[k][0].split(' ')[0]).join(', ');
    throw new UsageError(`identify the contact with one of ${flags}`, undefined, 'missing_identifier');
  }
  const given = (['contactId', 'userId', 'email'] as const).filter((k) => id[k === 'contactId' ? 'cnvContactId' : k] !== undefined);
  if (warn && given.length > 1) {
    const flag = (k: IdentifierKind) => FLAGS[k][0].split(' ')[0];
    const ignored = given.slice(1).map(flag);
    warn(`${ignored.join(' and ')} ${ignored.length > 1 ? 'are' : 'is'} ignored: the API finds the contact by ${flag(given[0])} alone (precedence ${given.map(flag).join(', ')}); if they name different contacts, ${flag(given[0])} wins`);
  }
  return id;
}
