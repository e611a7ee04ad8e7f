import { z } from 'zod';
import { UsageError } from '../errors.js';
import { describeProblem } from '../singer/json-file.js';
import {
  CLIENT_SETTINGS,
  clientConfig,
  CREDENTIAL_SETTINGS,
  givenSettings,
  type PluginClientConfig,
} from '../singer/singer-settings.js';

// The target's config file (Singer: --config), snake_case as Meltano writes settings
// (docs/target.md, "Settings"). The key and URL come from here only, unless `profile` names a
// cnv profile to take them from.

/** What a stream feeds. `ignore`: its records are read and not sent. */
export const STREAM_KINDS = ['contacts', 'events', 'audience', 'campaign', 'records', 'ignore'] as const;
type StreamKind = (typeof STREAM_KINDS)[number];

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a UUID');

const STREAM = z
  .strictObject({
    kind: z.enum(STREAM_KINDS),
    /** events: the name of every event of the stream. */
    event: z.string().trim().min(1).optional(),
    /** events: the property holding each event's name. */
    event_property: z.string().min(1).optional(),
    audience_id: uuid.optional(),
    campaign_id: uuid.optional(),
    custom_object_id: uuid.optional(),
    /** Property -> target, as --map: a body key, fields.KEY, a field key or label, body.NAME, or - (left out). */
    map: z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional(),
    /** The properties that key a record across runs, instead of the SCHEMA's key_properties. */
    key_properties: z.array(z.string().min(1)).optional(),
    /** audience: removals held past this many (default: max_removals, else 10% of the members the stream added, at least 100). */
    max_removals: z.number().int().min(0).optional(),
  })
  .superRefine((s, ctx) => {
    const needs: Partial<Record<StreamKind, 'audience_id' | 'campaign_id' | 'custom_object_id'>> = {
      audience: 'audience_id',
      campaign: 'campaign_id',
      records: 'custom_object_id',
    };
    const member = needs[s.kind];
    if (member && s[member] === undefined)
      ctx.addIssue({ code: 'custom', path: [member], message: `required by kind ${s.kind}` });
    if (s.event !== undefined && s.event_property !== undefined)
      ctx.addIssue({ code: 'custom', path: ['event_property'], message: 'give event or event_property, not both' });
    if ((s.event !== undefined || s.event_property !== undefined) && s.kind !== 'events')
      ctx.addIssue({ code: 'custom', path: ['event'], message: 'only for kind events' });
  });

const CONFIG = z.object({
  ...CREDENTIAL_SETTINGS,
  ...CLIENT_SETTINGS,
  streams: z.record(z.string(), STREAM).optional(),
  report_path: z.string().min(1).optional(),
  max_failed_rows: z.number().int().min(0).optional(),
  max_failed_ratio: z.number().min(0).max(1).optional(),
  max_removals: z.number().int().min(0).optional(),
  plan: z.boolean().optional(),
});

/** The settings the target reads (--about lists them): every other member draws a warning. */
const SETTINGS = Object.keys(CONFIG.shape);

/** How one stream is sent. */
export type StreamConfig = z.infer<typeof STREAM> & {
  /** Set for a stream the config does not name: the default of its name (docs/target.md, "Streams"). */
  byDefault?: string;
};

/** The target's config, as read. */
export interface TargetConfig extends PluginClientConfig {
  streams: Readonly<Record<string, StreamConfig>>;
  reportPath?: string;
  maxFailedRows?: number;
  maxFailedRatio?: number;
  maxRemovals?: number;
  plan: boolean;
}

/** Checks the parsed --config document (its problems: exit 2, naming the member; an unknown setting: a warning). */
export function targetConfig(doc: unknown, path: string, warn: (message: string) => void): TargetConfig {
  const { given } = givenSettings(doc, path, 'target-cnv', SETTINGS, warn);
  const parsed = CONFIG.safeParse(given);
  const hint = 'see docs/target.md, "Settings"';
  if (!parsed.success) throw new UsageError(describeProblem('--config', path, parsed.error.issues[0], given), hint);
  const c = parsed.data;
  return {
    ...clientConfig(path, c, hint),
    streams: c.streams ?? {},
    reportPath: c.report_path,
    maxFailedRows: c.max_failed_rows,
    maxFailedRatio: c.max_failed_ratio,
    maxRemovals: c.max_removals,
    plan: c.plan === true,
  };
}

/**
 * The streams of cnv's own tap, fed by their names when the config does not name them, so
 * `tap-cnv | target-cnv` copies an account with no `streams`: contacts as contacts; custom
 * events as events (their name, email and payload; the tap's own ids and times left out: the
 * copy's clientEventId is derived from the stream and the event's id). The others cannot be
 * written, so they are read and not sent, with a warning that says why (IGNORED_BY_DEFAULT).
 */
const DEFAULT_STREAMS: Record<string, StreamConfig> = {
  contacts: { kind: 'contacts', map: { unresolvedFields: '-' } },
  custom_events: {
    kind: 'events',
    map: {
      eventName: 'event',
      contactEmail: 'email',
      contactId: '-',
      occurredAt: '-',
      createdAt: '-',
      source: '-',
      clientEventId: '-',
    },
  },
  email_events: { kind: 'ignore' },
  fields: { kind: 'ignore' },
  campaigns: { kind: 'ignore' },
};

/** Why a stream of cnv's tap is not sent by default (said once, on stderr). */
const IGNORED_BY_DEFAULT: Record<string, string> = {
  email_events: 'the API records email events itself and has no endpoint that writes them',
  fields: 'the target creates no field (`cnv fields create` does; a field a record names must exist)',
  campaigns: 'the API cannot create a campaign',
};

/** The warning of a stream of cnv's tap that is read and not sent by default; undefined for any other. */
export function ignoredByDefault(config: StreamConfig): string | undefined {
  const why = config.byDefault === undefined ? undefined : IGNORED_BY_DEFAULT[config.byDefault];
  return why && `stream ${config.byDefault}: not sent: ${why} (name it in streams with kind ignore to silence this)`;
}

/** A stream's config: the config's own, else the default of its name, else undefined (not fed: exit 2). */
export function streamConfig(config: TargetConfig, stream: string): StreamConfig | undefined {
  if (Object.hasOwn(config.streams, stream)) return config.streams[stream];
  const fallback = Object.hasOwn(DEFAULT_STREAMS, stream) ? DEFAULT_STREAMS[stream] : undefined;
  return fallback && { ...fallback, byDefault: stream };
}

/** A stream's map as `COLUMN=TARGET` pairs (the --map form). */
export function mapPairs(map: StreamConfig['map']): string[] {
  if (map === undefined) return [];
  return Array.isArray(map) ? map : Object.entries(map).map(([column, target]) => `${column}=${target}`);
}
