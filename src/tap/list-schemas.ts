import type { JsonSchema } from './schemas.js';

// The schemas of the FULL_TABLE streams (api-spec: Field definition, Campaign).

const text = (): JsonSchema => ({ type: ['string', 'null'] });

/** The fields stream: every field definition of the account, of every object type. */
export function fieldsSchema(): JsonSchema {
  return {
    type: ['object'],
    properties: {
      key: { type: ['string'] },
      label: text(),
      objectType: text(),
      dataType: text(),
      readOnly: { type: ['boolean', 'null'] },
      customObjectId: text(),
    },
  };
}

/** The campaigns stream: the custom campaigns as the list shows them (no statuses nor description). */
export function campaignsSchema(): JsonSchema {
  return {
    type: ['object'],
    properties: {
      id: { type: ['string'] },
      name: text(),
      type: {
        type: ['object', 'null'],
        properties: { id: text(), name: text(), systemType: text() },
      },
      sfdcCampaignId: text(),
      memberCount: { type: ['integer', 'null'] },
      createdAt: { type: ['string', 'null'], format: 'date-time' },
      updatedAt: { type: ['string', 'null'], format: 'date-time' },
    },
  };
}
