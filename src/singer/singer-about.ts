// --about of cnv's Singer plugins (`cnv tap`, `cnv target`): the Singer SDK's document, which
// Meltano's `meltano add --custom` and the Hub read, and its markdown (a README's settings table).

/** What marks a setting secret (Meltano keeps it out of meltano.yml and its logs). */
export const SECRET = { secret: true, writeOnly: true };

/** What a plugin is, for its --about document. */
interface PluginAbout {
  name: string;
  description: string;
  capabilities: string[];
  /** A tap's streams. */
  streams?: string[];
}

/** --about --format json: the plugin, its version and the settings of its config (JSON schemas, by name). */
export function pluginAbout(
  plugin: PluginAbout,
  version: string,
  properties: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const { name, description, capabilities, streams } = plugin;
  return {
    name,
    description,
    version,
    sdk_version: null,
    capabilities,
    ...(streams === undefined ? {} : { streams }),
    settings: { type: 'object', properties, required: [] },
  };
}

/** api_key: secret; `kept`: the files besides the output it is never written to (the tap's catalog, the target's ledger). */
export function apiKeySetting(kept: string): Record<string, unknown> {
  return {
    type: 'string',
    title: 'API key',
    description: `The account's API key (sk_live_...): sent as X-API-Key, never written to any output, ${kept}`,
    ...SECRET,
  };
}

/** The settings of the client every plugin has besides api_key (their order in a document is the plugin's). */
export const CLIENT_ABOUT = {
  base_url: { type: 'string', title: 'Base URL', description: "The API's base URL", format: 'uri' },
  profile: {
    type: 'string',
    title: 'cnv profile',
    description:
      'Instead of api_key and base_url: the cnv profile to read them from (api_key and base_url still win when given)',
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
