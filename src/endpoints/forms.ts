import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf, pathOf } from './endpoints.js';

// The set of field types is open: any string is accepted and shown as it comes.
const formFieldSchema = z.looseObject({
  fieldId: z.string(),
  name: z.string(),
  type: z.string(),
  required: z.boolean().optional(),
  hidden: z.boolean().optional(),
  options: z.array(z.looseObject({ label: z.string().optional(), value: z.string().optional() })).optional(),
});
export type FormField = z.output<typeof formFieldSchema>;

const formSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  submissionCount: z.number().optional(),
  lastSubmittedAt: z.string().nullable().optional(),
  fields: z.array(formFieldSchema).default([]),
});
export type Form = z.output<typeof formSchema>;

/** GET /v2/forms/{id}: tracked, published native forms only (everything else is 404 form_not_found). */
export async function getForm(http: HttpClient, formId: string, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.getForm.method, path: pathOf(ENDPOINTS.getForm, { formId }), data: z.looseObject({ form: formSchema }), idempotency: idempotencyOf(ENDPOINTS.getForm), signal,
  });
  return res.data.form;
}
