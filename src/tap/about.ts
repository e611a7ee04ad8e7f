import { STREAM_NAMES } from './stream-table.js';

/**
 * --about: what the tap is and the settings of its config (the Singer SDK's `--about --format
 * json` document, which Meltano's `meltano add --custom` and the Hub read). api_key is secret.
 */
export function aboutDocument(version: string): Record<string, unknown> {
  return {
    name: 'tap-cnv',
    description:
      'Singer tap of the Marketing Automation Service API v2 (cnv): contacts, custom events and email events, incremental, exactly once per run, resumable from any STATE',
    version,
    sdk_version: null,
    capabilities: ['catalog', 'discover', 'state', 'about'],
    streams: [...STREAM_NAMES],
    settings: {
      type: 'object',
      properties: {
        api_key: {
          type: 'string',
          title: 'API key',
          description:
            "The account's API key (sk_live_...): sent as X-API-Key, never written to any output, catalog or state",
          secret: true,
          writeOnly: true,
        },
        base_url: { type: 'string', title: 'Base URL', description: "The API's base URL", format: 'uri' },
        start_date: {
          type: 'string',
          title: 'Start date',
          description:
            'First run only: custom events from this time (occurredAt window start); contacts updated and email events occurred before it are not emitted',
          format: 'date-time',
        },
        page_size: {
          type: 'integer',
          title: 'Page size',
          description: "Rows per export request, clamped to each export's bounds (default: each export's largest)",
          minimum: 1,
        },
        max_retries: {
          type: 'integer',
          title: 'Max retries',
          description: 'Retries after a transient failure (default 3)',
          minimum: 0,
          maximum: 20,
        },
        timeout_ms: {
          type: 'integer',
          title: 'Timeout',
          description: 'Time limit of each HTTP attempt, in milliseconds (default 30000)',
          minimum: 1,
        },
        profile: {
          type: 'string',
          title: 'cnv profile',
          description:
            'Instead of api_key and base_url: the cnv profile to read them from (api_key and base_url still win when given)',
        },
      },
      required: [],
    },
  };
}
