import { emailSchema, uuidSchema, type ContactIdentifier } from '../endpoints/identifiers.js';
import { UsageError } from '../errors.js';
import { textFlag, withBrief } from './flags.js';

type IdentifierKind = 'contactId' | 'userId' | 'email';

/** The identifier flags, in the API's precedence order (a command takes the ones it accepts). */
export const IDENTIFIER_FLAGS = {
  contactId: textFlag('--contact-id <uuid>', 'the contact by its cnvContactId'),
  userId: textFlag('--user-id <id>', 'the contact by your external user id'),
  email: withBrief(
    textFlag('--email <address>', 'the contact by email (the most recently updated one when several share it)'),
    'the contact by email',
  ),
};

const flagOf = (kind: IdentifierKind) => IDENTIFIER_FLAGS[kind].flags.split(' ')[0];

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
    if (!parsed.success)
      throw new UsageError(
        `--contact-id: ${parsed.error.issues[0].message}, got "${opts.contactId}"`,
        undefined,
        'invalid_request',
      );
    id.cnvContactId = parsed.data;
  }
  if (kinds.includes('userId') && opts.userId !== undefined) {
    if (opts.userId.trim() === '')
      throw new UsageError('--user-id: must not be empty', undefined, 'missing_identifier');
    id.userId = opts.userId;
  }
  if (kinds.includes('email') && opts.email !== undefined) {
    const parsed = emailSchema.safeParse(opts.email);
    if (!parsed.success)
      throw new UsageError(
        `--email: ${parsed.error.issues[0].message}, got "${opts.email}"`,
        undefined,
        'invalid_email',
      );
    id.email = parsed.data;
  }
  if (Object.keys(id).length === 0) {
    const flags = kinds.map(flagOf).join(', ');
    throw new UsageError(`identify the contact with one of ${flags}`, undefined, 'missing_identifier');
  }
  const given = (['contactId', 'userId', 'email'] as const).filter(
    (k) => id[k === 'contactId' ? 'cnvContactId' : k] !== undefined,
  );
  if (warn && given.length > 1) {
    const ignored = given.slice(1).map(flagOf);
    const first = flagOf(given[0]);
    const why = `the API finds the contact by ${first} alone (precedence ${given.map(flagOf).join(', ')})`;
    warn(
      `${ignored.join(' and ')} ${ignored.length > 1 ? 'are' : 'is'} ignored: ${why}; ` +
        `if they name different contacts, ${first} wins`,
    );
  }
  return id;
}
