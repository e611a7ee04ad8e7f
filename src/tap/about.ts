import { STREAM_NAMES } from './stream-table.js';

const secret = { secret: true, writeOnly: true };

/**
 * --about: what the tap is and the settings of its config (the Singer SDK's `--about --format
 * json` document, which Meltano's `meltano add --custom` and the Hub read). api_key is secret.
 */
export function aboutDocument(version: string): Record<string, unknown> {
  return {
    name: 'tap-cnv',
    description:
      'Singer tap of the Marketing Automation Service API v2 (cnv): contacts, ' +
      'custom events and email events (incremental, exactly once per run, resumable from any STATE), ' +
      'field definitions and campaigns',
    version,
    sdk_version: null,
    capabilities: ['catalog', 'discover', 'state', 'about', 'stream-maps', 'flattening'],
    streams: [...STREAM_NAMES],
    settings: {
      type: 'object',
      properties: {
        api_key: {
          type: 'string',
          title: 'API key',
          description:
            "The account's API key (sk_live_...): sent as X-API-Key, never written to any output, catalog or state",
          ...secret,
        },
        base_url: { type: 'string', title: 'Base URL', description: "The API's base URL", format: 'uri' },
        start_date: {
          type: 'string',
          title: 'Start date',
          description:
            'First run only: custom events from this time (occurredAt window start); ' +
            'contacts updated and email events occurred before it are not emitted',
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
        ...MAP_SETTINGS,
      },
      required: [],
    },
  };
}

/** The settings of stream maps and flattening (docs/singer.md, "Stream maps", "Flattening"). */
const MAP_SETTINGS = {
  stream_maps: {
    type: 'object',
    title: 'Stream maps',
    description:
      'Per stream: properties dropped (null or __NULL__), set by an expression (a property, ' +
      "record['name'], config['name'], a quoted text, md5(...), sha256(...), joined with +), " +
      '__else__: null, __key_properties__; ' +
      'the stream renamed (__alias__), copied (__source__) or removed (null); ' +
      '__else__: null at the top removes the others',
  },
  stream_map_config: {
    type: 'object',
    title: 'Stream map config',
    description: "What config['name'] reads in a stream map expression (a hash seed)",
    ...secret,
  },
  flattening_enabled: {
    type: 'boolean',
    title: 'Flattening',
    description: "Objects' members as properties of their own (data__plan), down to flattening_max_depth",
  },
  flattening_max_depth: {
    type: 'integer',
    title: 'Flattening depth',
    description: 'How deep flattening goes (needed with flattening_enabled; 1: the members of data)',
    minimum: 0,
  },
  flattening_separator: {
    type: 'string',
    title: 'Flattening separator',
    description: 'What joins a flattened name (default __)',
  },
};

/** --about --format markdown: the document the Meltano SDK writes (a README's settings table). */
export function aboutMarkdown(about: Record<string, unknown>): string {
  const settings = (about.settings as { properties: Record<string, Record<string, unknown>> }).properties;
  const cell = (text: unknown) =>
    String(text ?? '')
      .replace(/\|/g, '\\|')
      .replace(/\n/g, '<BR/>');
  const rows = Object.entries(settings).map(
    ([name, s]) => `| ${name} | False | ${cell(s.default ?? 'None')} | ${cell(s.description)} |`,
  );
  return [
    `# \`${String(about.name)}\``,
    '',
    String(about.description),
    '',
    '## Capabilities',
    '',
    ...(about.capabilities as string[]).map((c) => `- \`${c}\``),
    '',
    '## Settings',
    '',
    '| Setting | Required | Default | Description |',
    '|:--------|:--------:|:-------:|:------------|',
    ...rows,
    '',
    `A full list of supported settings and capabilities is available by running: \`${String(about.name)} --about\``,
    '',
  ].join('\n');
}
