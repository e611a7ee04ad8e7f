import type { Command } from 'commander';
import { RELATIONSHIP_OBJECT_TYPES, type RelationshipSide } from '../../endpoints/fields.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions, textFlag, withBrief } from '../../cmdutil/flags.js';
import { checkSide, parseSideSpec } from '../../cmdutil/relationship-side.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

type Side = 'source' | 'target';

/** One side's flags: its spec, or its four separate flags. */
function sideFlags<S extends Side>(side: S) {
  return {
    [side]: textFlag(`--${side} <spec>`, `${side} side as OBJECT:key:label[:customObjectId]`),
    [`${side}Object`]: withBrief(
      textFlag(`--${side}-object <type>`, `${side} object type: ${RELATIONSHIP_OBJECT_TYPES.join(', ')} (any case)`),
      `${side} object type (CONTACT, CUSTOM_OBJECT...)`,
    ),
    [`${side}Key`]: withBrief(
      textFlag(`--${side}-key <key>`, `${side} field key (letters, digits, underscores; trimmed)`),
      `${side} field key`,
    ),
    [`${side}Label`]: textFlag(`--${side}-label <label>`, `${side} field label (trimmed; may hold colons)`),
    [`${side}CustomObjectId`]: textFlag(
      `--${side}-custom-object-id <uuid>`,
      `${side} custom object id (CUSTOM_OBJECT only)`,
    ),
  } as Record<S | `${S}${'Object' | 'Key' | 'Label' | 'CustomObjectId'}`, ReturnType<typeof textFlag>>;
}

/** Each side: its spec flag, or its four separate flags (never both); the two keys differ. */
export const options = commandOptions(
  { ...sideFlags('source'), ...sideFlags('target') },
  { check: (opts) => void sides(opts) },
);

/** Both sides, checked. */
function sides(opts: SideValues): { source: RelationshipSide; target: RelationshipSide } {
  const source = sideFrom(opts, 'source');
  const target = sideFrom(opts, 'target');
  if (source.key === target.key) throw new UsageError('--target: the two keys must differ');
  return { source, target };
}

type SideValues = Partial<
  Record<keyof ReturnType<typeof sideFlags<'source'>> | keyof ReturnType<typeof sideFlags<'target'>>, string>
>;

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [{ schema: ENDPOINTS.createRelationship.answer.schema(), note: "(the API's data)" }],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Creates a writable source field and the reverse field the service maintains. Each side is
given either as one spec OBJECT:key:label[:customObjectId] or with the four separate flags.
In a spec the object and key end at the first two colons and the rest is the label (colons
allowed); for CUSTOM_OBJECT the part after the last colon is the custom object id.

Examples:
  $ cnv fields relate --source CUSTOM_OBJECT:subscriber:Subscriber:c0000000-0000-4000-8000-000000000001 \\
      --target CONTACT:subscriptions:Subscriptions
  $ cnv fields relate --source-object opportunity --source-key partner --source-label "Partner: primary" \\
      --target-object company --target-key partnerOpportunities --target-label "Partner opportunities"`,
  );
}

/** One side from either its spec flag or its separate flags (never both). */
export function sideFrom(opts: SideValues, side: Side): RelationshipSide {
  const spec = opts[side];
  const parts = {
    objectType: opts[`${side}Object`],
    key: opts[`${side}Key`],
    label: opts[`${side}Label`],
    customObjectId: opts[`${side}CustomObjectId`],
  };
  const anyPart = Object.values(parts).some((v) => v !== undefined);
  if (spec !== undefined && anyPart)
    throw new UsageError(`--${side}: give either --${side} or the --${side}-* flags, not both`);
  if (spec !== undefined) return parseSideSpec(spec, `--${side}`);
  if (!anyPart)
    throw new UsageError(
      `--${side}: required (OBJECT:key:label[:customObjectId], or --${side}-object, --${side}-key and --${side}-label)`,
    );
  return checkSide(parts, `--${side}`);
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const result = await (await ctx.http()).call(ENDPOINTS.createRelationship, { body: sides(opts), signal: ctx.signal });
  return { kind: 'record', data: result };
}
