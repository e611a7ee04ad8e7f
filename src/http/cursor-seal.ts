import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import { UsageError } from '../errors.js';
import { keyForms, type KeyForms } from '../redact/key-forms.js';

/** What a sealed cursor starts with: no cursor the API makes does (its cursors are opaque base64). */
const PREFIX = 'cnv-sealed.';

/**
 * A cursor goes back to the server exactly as the server sent it; what cnv prints or stores is
 * masked. A cursor that holds the API key (a server or proxy that echoes it into its tokens) is
 * both, so the client hands it out sealed: AES-256-GCM under a key derived from the API key, the
 * IV derived from the cursor (the same cursor seals the same way, so a cursor that repeats is
 * still seen to repeat). The exporter, its state, `cnv api --paginate` and every printer see the
 * sealed text, which holds no form of the key; the client opens it just before it sends it.
 * A cursor without the key (every real one) is handed out as it came.
 */
export class CursorSeal {
  private forms: KeyForms | undefined;
  private secret: Buffer | undefined;

  constructor(private readonly apiKey: string) {}

  /** The cursor as the layers above the client may hold it. */
  seal(cursor: string): string {
    if (this.apiKey.length < 8) return cursor;
    const forms = (this.forms ??= keyForms(this.apiKey));
    if (!cursor.startsWith(PREFIX) && !(forms.mayHold(cursor) && forms.mask(cursor) !== cursor)) return cursor;
    const key = this.key();
    const plain = Buffer.from(cursor, 'utf8');
    const iv = createHmac('sha256', key).update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  }

  /** The cursor as the server sent it (a value that is no sealed cursor is returned as it is). */
  open(value: string): string {
    if (!value.startsWith(PREFIX)) return value;
    const bytes = Buffer.from(value.slice(PREFIX.length), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key(), bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new UsageError(
        'the cursor was sealed under another API key (the server put the key into its cursor), so it cannot be sent',
        'use the API key that made it, or start over (an export: --full)',
        'cursor_sealed',
      );
    }
  }

  private key(): Buffer {
    return (this.secret ??= createHash('sha256').update('cnv cursor seal\0').update(this.apiKey).digest());
  }
}
