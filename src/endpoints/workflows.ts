import { z } from 'zod';
import type { ContactIdentifier } from './identifiers.js';
import { once } from '../lib/once.js';

/** `data` of POST /v2/workflows/{workflowId}/trigger. */
export const triggerResult = once(() => z.looseObject({ triggered: z.boolean() }));

export interface TriggerWorkflowBody extends ContactIdentifier {
  data?: Record<string, unknown>;
}
