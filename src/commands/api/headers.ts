import { InvalidArgumentError } from 'commander';
import { HINT_MARK } from '../../cmdutil/suggest.js';

/** Request headers cnv sets itself: the key's (the profile's, never a flag's), and those of the transport. */
const OWN_HEADERS = new Set([
  'x-api-key',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** Commander collector for -H 'Name: value': lower-case name and value, in order; the key's header is refused. */
export function collectHeader(text: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const colon = text.indexOf(':');
  const name = text.slice(0, colon).trim().toLowerCase();
  const value = text.slice(colon + 1).trim();
  if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
    throw new InvalidArgumentError(`expected 'Name: value', got ${JSON.stringify(text)}`);
  if (/[\r\n\0]/.test(value)) throw new InvalidArgumentError(`${name}: a header value cannot hold a line break`);
  if (name === 'x-api-key') {
    throw new InvalidArgumentError(
      "X-API-Key is cnv's: the key in force (--api-key, CNV_API_KEY or the profile's) is sent, never a header's" +
        `${HINT_MARK}cnv api --profile NAME, or CNV_API_KEY=... cnv api, sends another key`,
    );
  }
  if (OWN_HEADERS.has(name)) throw new InvalidArgumentError(`${name}: this header is the transport's, not one to set`);
  if (previous.some(([n]) => n === name)) throw new InvalidArgumentError(`${name} given twice: give each header once`);
  return [...previous, [name, value]];
}
