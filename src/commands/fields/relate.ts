import type { Command } from 'commander';
import { z } from 'zod';
import { createRelationship, RELATIONSHIP_OBJECT_TYPES, type RelationshipSide } from '../../api/fields.js';
import type { CommandInput } from '../contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../io/render.js';
import { checkSide, parseSideSpec } from './relationship-side.js';

const SIDES = ['source', 'target'] as const;

const text = z.string().optional();
/** Each side: its spec flag, or its four separate flags. */
export const options = z.object({
  source: text, sourceObject: text, sourceKey: text, sourceLabel: text, sourceCustomObjectId: text,
  target: text, targetObject: text, targetKey: text, targetLabel: text, targetCustomObjectId: text,
});

export function configure(cmd: Command): void {
  for (const side of SIDES) {
    cmd
      .option(`--${side} <spec>`, `${side} side as OBJECT:key:label[:customObjectId]`)
      .option(`--${side}-object <type>`, `${side} object type: ${RELATIONSHIP_OBJECT_TYPES.join(', ')} (any case)`)
      .option(`--${side}-key <key>`, `${side} field key (letters, digits, underscores; trimmed)`)
      .option(`--${side}-label <label>`, `${side} field label (trimmed; may hold colons)`)
      .option(`--${side}-custom-object-id <uuid>`, `${side} custom object id (CUSTOM_OBJECT only)`);
  }
  cmd.addHelpText('after', `
Creates a writable source field and the reverse field the service maintains. Each side is
given either as one spec OBJECT:key:label[:customObjectId] or with the four separate flags.
In a spec the object and key end at the first two colons and the rest is the label (colons
allowed); for CUSTOM_OBJECT the part after the last colon is the custom object id.

Examples:
  $ cnv fields relate --source CUSTOM_OBJECT:subscriber:Subscriber:c0000000-0000-4000-8000-000000000001 \\
      --target CONTACT:subscriptions:Subscriptions
  $ cnv fields relate --source-object opportunity --source-key partner --source-label "Partner: primary" \\
      --target-object company --target-key partnerOpportunities --target-label "Partner opportunities"`);
}

/** One side from either its spec flag or its separate flags (never both). */
export function sideFrom(opts: z.output<typeof options>, side: (typeof SIDES)[number]): RelationshipSide {
  const spec = opts[side];
  const parts = {
    objectType: opts[`${side}Object`],
    key: opts[`${side}Key`],
    label: opts[`${side}Label`],
    customObjectId: opts[`${side}CustomObjectId`],
  };
  const anyPart = Object.values(parts).some((v) => v !== undefined);
  if (spec !== undefined && anyPart) throw new UsageError(`--${side}: give either --${side} or the --${side}-* flags, not both`);
  if (spec !== undefined) return parseSideSpec(spec, `--${side}`);
  if (!anyPart) throw new UsageError(`--${side}: required (OBJECT:key:label[:customObjectId], or --${side}-object, --${side}-key and --${side}-label)`);
  return checkSide(parts, `--${side}`);
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const source = sideFrom(opts, 'source');
  const target = sideFrom(opts, 'target');
  if (source.key === target.key) throw new UsageError('--target: the two keys must differ');
  const result = await createRelationship(await ctx.http(), { source, target }, ctx.signal);
  return { kind: 'record', data: result };
}
