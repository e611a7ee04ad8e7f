import { apiKeySetting, CLIENT_ABOUT, pluginAbout } from '../singer/singer-about.js';
import { STREAM_KINDS } from './target-config.js';

/** --about: what the target is and the settings of its config (src/singer/singer-about.ts). api_key is secret. */
export function targetAbout(version: string): Record<string, unknown> {
  const integer = (title: string, description: string) => ({ type: 'integer', title, description, minimum: 0 });
  const { base_url, profile, max_retries, timeout_ms } = CLIENT_ABOUT;
  const target = {
    name: 'target-cnv',
    description:
      'Singer target of the Marketing Automation Service API v2 (cnv): contacts, events, audience members ' +
      'and custom-object records sent only where they differ, a STATE printed only once what it covers is durable',
    capabilities: ['about', 'activate-version', 'soft-delete'],
  };
  return pluginAbout(target, version, {
    api_key: apiKeySetting('report or ledger'),
    base_url,
    profile,
    streams: {
      type: 'object',
      title: 'Streams',
      description:
        `What each stream feeds: {"kind": ${STREAM_KINDS.filter((k) => k !== 'ignore').join('|')}|ignore, ` +
        'event, event_property, audience_id, campaign_id, custom_object_id, map: {PROPERTY: TARGET}, ' +
        'key_properties, max_removals}; contacts, custom_events and email_events have defaults',
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
      description: 'Send nothing and print no state: the changes go to the report; exit 9 when anything would change',
    },
    max_retries,
    timeout_ms,
  });
}
