import { UsageError } from '../errors.js';

const KEY_SHAPE = /^sk_live_[A-Za-z0-9]+_[A-Za-z0-9]+$/;

/** Refuses a key that could never be sent as a header; returns a warning when it has an unexpected shape. */
export function checkApiKey(key: string, source: string): { warning?: string } {
  if (key.length === 0) throw new UsageError(`the API key from ${source} is empty`);
  if (/[\s\x00-\x1f\x7f]/.test(key)) {
    throw new UsageError(
      `the API key from ${source} contains whitespace or control characters`,
      'paste the key alone, without spaces or line breaks',
    );
  }
  if (!KEY_SHAPE.test(key)) {
    return { warning: `the API key from ${source} does not have the form sk_live_<key_id>_<secret>` };
  }
  return {};
}
