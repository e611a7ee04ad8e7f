import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { outDir } from '../helpers/exports.js';

// Issue 38, "the operator's stumbles", through the built binary: what a tired operator or a gh
// user meets at the edges (deleting off a terminal, gh's flags, interrupted runs, plans, tables).

const fx = useEmulator({ rateLimit: 0 }, { faults: true, stats: true });
const freshEnv = () => ({ ...fx.env, CNV_CONFIG_DIR: tempConfigDir() });

describe('destructive commands off a terminal need --yes', () => {
  it('export state reset KEY: exit 2 naming --yes, the state kept; --yes deletes', async () => {
    const env = freshEnv();
    expect((await cnv(['export', 'contacts', '--state-key', 'crm', '--max-rows', '2', '--out', join(outDir(), 'c.csv')], { env })).exitCode).toBe(0);
    const refused = await cnv(['export', 'state', 'reset', 'crm'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^error: confirmation_required: export state reset crm: --yes is required off a terminal \(nothing was deleted\)$/m);
    expect((await cnv(['export', 'state', 'show', 'crm'], { env })).exitCode).toBe(0);
    const yes = await cnv(['export', 'state', 'reset', 'crm', '--yes'], { env });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await cnv(['export', 'state', 'show', 'crm'], { env })).exitCode).toBe(5);
  });

  it('config remove NAME (deletes a stored API key): exit 2 naming --yes, the profile kept; --yes deletes', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir() };
    expect((await cnv(['--profile', 'old', 'config', 'set-url', fx.emulator.url], { env })).exitCode).toBe(0);
    const refused = await cnv(['config', 'remove', 'old'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/^error: confirmation_required: config remove old: --yes is required off a terminal/m);
    expect(existsSync(join(env.CNV_CONFIG_DIR, 'config.json'))).toBe(true);
    expect((await cnv(['config', 'list', '--json'], { env })).stdout).toContain('"old"');
    expect((await cnv(['config', 'remove', 'old', '--yes'], { env })).exitCode).toBe(0);
    expect((await cnv(['config', 'list', '--json'], { env })).stdout).not.toContain('"old"');
  });
});

describe("gh's habits get a hint", () => {
  it('--jq names -q and JMESPath, with the JMESPath form of a simple jq path', async () => {
    const res = await cnv(['campaigns', 'list', '--jq', '.[].name'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe("error: unknown_option: unknown option '--jq'\nhint: cnv has no --jq: -q/--query takes a JMESPath expression (not jq), e.g. -q '[].name' for jq's .[].name\n");
    const piped = await cnv(['campaigns', 'list', '--jq=.[] | select(.id)'], { env: fx.env });
    expect(piped.stderr).toMatch(/^hint: cnv has no --jq: -q\/--query takes a JMESPath expression \(not jq\), e.g. -q '\[\].name'$/m);
  });

  it("--json email,userId (gh's field list) names --columns where the command has it, else -q", async () => {
    const list = await cnv(['campaigns', 'list', '--json', 'name,id'], { env: fx.env });
    expect(list.exitCode).toBe(2);
    expect(list.stderr).toMatch(/^hint: --json takes no field list here \(it is a switch: the whole result as JSON\); choose fields with --columns: --columns name,id --json$/m);
    const get = await cnv(['contacts', 'get', '--email', 'ada@example.com', '--json', 'email,userId'], { env: fx.env });
    expect(get.exitCode).toBe(2);
    expect(get.stderr).toMatch(/^hint: .*choose fields with -q \(JMESPath\): --json -q '\{email: email, userId: userId\}'$/m);
    // The form the hint gives works.
    const fixed = await cnv(['contacts', 'get', '--email', 'ada@example.com', '--json', '-q', '{email: email, userId: userId}'], { env: fx.env });
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(Object.keys(JSON.parse(fixed.stdout))).toEqual(['email', 'userId']);
  });
});
