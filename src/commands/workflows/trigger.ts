import type { Command } from 'commander';
import type { TriggerWorkflowBody } from '../../endpoints/workflows.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { IDENTIFIER_FLAGS, identifierFrom } from '../../cmdutil/identifier.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import { dataFlag } from '../../cmdutil/body-flags.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions({
  ...IDENTIFIER_FLAGS,
  data: dataFlag('trigger data passed to the workflow, a JSON object'),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { schema: z.looseObject({ workflowId: z.string(), ...ENDPOINTS.triggerWorkflow.answer.schema().shape }) },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<workflowId>', 'id (UUID) of an API-triggered workflow', uuidArgument).addHelpText(
    'after',
    `
A trigger is not idempotent: cnv retries it only when the request provably never reached the
server (connection refused, 429), so a workflow never runs twice because of a retry. If the
outcome is unknown (timeout, dropped connection) the command fails with exit 7; check before
triggering again.

Examples:
  $ cnv workflows trigger d1000000-0000-4000-8000-000000000001 --email ada@example.com
  $ cnv workflows trigger d1000000-0000-4000-8000-000000000001 --user-id user-ada --data '{"plan":"pro"}'`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const workflowId = args[0] as string;
  const body: TriggerWorkflowBody = identifierFrom(opts, undefined, (m) => ctx.warn(m));
  if (opts.data !== undefined) body.data = opts.data;
  const result = await (
    await ctx.http()
  ).call(ENDPOINTS.triggerWorkflow, { params: { workflowId }, body, signal: ctx.signal });
  if (!result.triggered) ctx.warn('the API answered triggered: false (the workflow did not start; is it active?)');
  return { kind: 'record', data: { workflowId, ...result } };
}
