import { STREAM_KINDS } from './target-config.js';

/**
 * --about: what the target is and the settings of its config (the Singer SDK's `--about --format
 * json` document, which Meltano's `meltano add --custom` and the Hub read). api_key is secret.
 */
export function targetAbout(version: string): Record<string, unknown> {
  const integer = (title: string, description: string, minimum = 0) => ({
    type: 'integer',
    title,
    description,
    minimum,
  });
  return {
    name: 'target-cnv',
    description:
      'Singer target of the Marketing Automation Service API v2 (cnv): contacts, events, audience members and custom-object records sent only where they differ, a STATE printed only once what it covers is durable',
    version,
    sdk_version: null,
    capabilities: ['about', 'activate-version', 'soft-delete'],
    settings: {
      type: 'object',
      properties: {
        api_key: {
          type: 'string',
          title: 'API key',
          description:
            "The account's API key (sk_live_...): sent as X-API-Key, never written to any output, report or ledger",
          secret: true,
          writeOnly: true,
        },
        base_url: { type: 'string', title: 'Base URL', description: "The API's base URL", format: 'uri' },
        profile: {
          type: 'string',
          title: 'cnv profile',
          description: 'Instead of api_key and base_url: the cnv profile to read them from (api_key and base_url win)',
        },
        streams: {
          type: 'object',
          title: 'Streams',
          description: `What each stream feeds: {"kind": ${STREAM_KINDS.filter((k) => k !== 'ignore').join('|')}|ignore, event, event_property, audience_id, campaign_id, custom_object_id, map: {PROPERTY: TARGET}, key_properties, max_removals}; contacts, custom_events and email_events have defaults`,
          additionalProperties: { type: 'object' },
        },
        report_path: {
          type: 'string',
          title: 'Report path',
          description: "Where each record's outcome is written (JSON lines), and with plan the changes",
        },
        max_failed_rows: integer(
          'Max failed rows',
          'More failed or invalid rows than this: exit 6, after the state was printed',
        ),
        max_failed_ratio: {
          type: 'number',
          title: 'Max failed ratio',
          description: 'A larger share (0 to 1) of failed or invalid rows: exit 6, after the state was printed',
          minimum: 0,
          maximum: 1,
        },
        max_removals: integer(
          'Max removals',
          "An audience's removals are held past this many (default: 10% of the members the stream added, at least 100)",
        ),
        plan: {
          type: 'boolean',
          title: 'Plan',
          description:
            'Send nothing and print no state: the changes go to the report; exit 9 when anything would change',
        },
        max_retries: integer('Max retries', 'Retries after a transient failure (default 3)'),
        timeout_ms: integer('Timeout', 'Time limit of each HTTP attempt, in milliseconds (default 30000)', 1),
      },
      required: [],
    },
  };
}

/** --about --format markdown: the document the Meltano SDK writes (a README's settings table). */
export function targetAboutMarkdown(about: Record<string, unknown>): string {
  const settings = (about.settings as { properties: Record<string, Record<string, unknown>> }).properties;
  const cell = (text: unknown) =>
    String(text ?? '')
      .replace(/\|/g, '\\|')
      .replace(/\n/g, '<BR/>');
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
    ...Object.entries(settings).map(([name, s]) => `| ${name} | False | None | ${cell(s.description)} |`),
    '',
    `A full list of supported settings and capabilities is available by running: \`${String(about.name)} --about\``,
    '',
  ].join('\n');
}
