import { z } from 'zod';
import { once } from '../lib/once.js';

/** `data.form` of GET /v2/forms/{formId}: tracked, published native forms only (everything else is 404 form_not_found). */
export const formAnswer = once(() => {
  // The set of field types is open: any string is accepted and shown as it comes.
  const formField = z.looseObject({
    fieldId: z.string(),
    name: z.string(),
    type: z.string(),
    required: z.boolean().optional(),
    hidden: z.boolean().optional(),
    options: z.array(z.looseObject({ label: z.string().optional(), value: z.string().optional() })).optional(),
  });
  return z.looseObject({
    id: z.string(),
    name: z.string(),
    createdAt: z.string().optional(),
    updatedAt: z.string().optional(),
    submissionCount: z.number().optional(),
    lastSubmittedAt: z.string().nullable().optional(),
    fields: z.array(formField).default([]),
  });
});
export type Form = z.output<ReturnType<typeof formAnswer>>;
export type FormField = Form['fields'][number];
