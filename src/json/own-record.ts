import { z } from 'zod';
import { isExactNumber } from '../lib/exact-number.js';

// zod's z.record and z.looseObject build a new object by assignment, so a member named
// `__proto__` (a field key or label: user data) is lost on the way (it sets the prototype
// instead). Maps of user keys (a contact's fields, an event's data, --data) are checked here and
// passed on as they are: every member kept, `__proto__` and `constructor` included.

/**
 * A JSON object of any members, returned as it came (not rebuilt). Its description is its shape
 * in the help's notation (src/cmdutil/json-output.ts reads it for a custom schema).
 */
export function ownRecord(message = 'expected a JSON object') {
  return z
    .custom<Record<string, unknown>>(
      (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !isExactNumber(v),
      { message },
    )
    .describe('{KEY: any JSON}');
}
