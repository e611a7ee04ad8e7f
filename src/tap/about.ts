import { apiKeySetting, CLIENT_ABOUT, pluginAbout, SECRET } from '../singer/singer-about.js';
import { STREAM_NAMES } from './stream-table.js';

/** --about: what the tap is and the settings of its config (src/singer/singer-about.ts). api_key is secret. */
export function aboutDocument(version: string): Record<string, unknown> {
  const { base_url, max_retries, timeout_ms, profile } = CLIENT_ABOUT;
  const tap = {
    name: 'tap-cnv',
    description:
      'Singer tap of the Marketing Automation Service API v2 (cnv): contacts, custom events and email events ' +
      '(incremental, exactly once per run, resumable from any STATE), field definitions and campaigns',
    capabilities: ['catalog', 'discover', 'state', 'about', 'stream-maps', 'flattening'],
    streams: [...STREAM_NAMES],
  };
  return pluginAbout(tap, version, {
    api_key: apiKeySetting('catalog or state'),
    base_url,
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
    max_retries,
    timeout_ms,
    profile,
    ...MAP_SETTINGS,
  });
}

/** The settings of stream maps and flattening (docs/singer.md, "Stream maps", "Flattening"). */
const MAP_SETTINGS = {
  stream_maps: {
    type: 'object',
    title: 'Stream maps',
    description:
      'Per stream: properties dropped (null or __NULL__), set by an expression (a property, ' +
      "record['name'], config['name'], a quoted text, md5(...), sha256(...), joined with +), " +
      '__else__: null, __key_properties__; the stream renamed (__alias__), copied (__source__) ' +
      'or removed (null); __else__: null at the top removes the others',
  },
  stream_map_config: {
    type: 'object',
    title: 'Stream map config',
    description: "What config['name'] reads in a stream map expression (a hash seed)",
    ...SECRET,
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
