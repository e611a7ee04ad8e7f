import type { Dispatcher } from 'undici';
import { escapeControl } from '../lib/terminal-text.js';
import { redactUrl } from '../redact/redact.js';

const SNIPPET_CHARS = 80;

/**
 * What a body that is not the API's looks like, in a few words and a short quoted snippet
 * (never the page itself): `an HTML page ("Directory listing for /")`, `an empty body`.
 */
export function describeBody(text: string, headers: Dispatcher.ResponseData['headers'], complete = true): string {
  const type = String(headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  const trimmed = text.trim();
  if (trimmed === '') return complete ? 'an empty body' : 'a body that is too large';
  const html = type.includes('html') || /^<(!doctype|html|head|body|title|h1|p|div)\b/i.test(trimmed);
  if (html) {
    const title =
      /<title[^>]*>([\s\S]*?)<\/title>/i.exec(trimmed)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(trimmed)?.[1];
    return `an HTML page${title ? ` (${quote(title.replace(/<[^>]*>/g, ''))})` : ''}`;
  }
  return `${parsesAsJson(trimmed) ? "JSON that is not the API's envelope" : `a ${type || 'text'} body`} (${quote(trimmed)})`;
}

/** Where a redirect points, for a message: redacted, escaped and short. */
export function redirectTarget(headers: Dispatcher.ResponseData['headers']): string | undefined {
  const raw = headers.location;
  const location = Array.isArray(raw) ? raw[0] : raw;
  return location ? quote(redactUrl(location)) : undefined;
}

/** A short, escaped, double-quoted excerpt: whitespace runs folded, control characters shown as escapes. */
function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
  return `"${escapeControl(cut).replace(/"/g, '\\"')}"`;
}

function parsesAsJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
