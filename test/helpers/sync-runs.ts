import { tempConfigDir, type CliResult } from './cli.js';
import type { EmulatorFixture } from './emulator.js';

/** Runs cnv: the built binary (`cnv`) or in this process (`cnvInProcess`). */
type Run = (args: string[], opts: { env?: Record<string, string | undefined> }) => Promise<CliResult>;

export const UPSERT = 'POST /v2/contacts';
export const EXPORT = 'POST /v2/exports/contacts';

/** A contacts file of emails and cities. */
export const csv = (rows: Array<[string, string]>) => `email,city\n${rows.map(([e, c]) => `${e},${c}`).join('\n')}\n`;

/** `n` contacts named by `tag`, each with a city. */
export const people = (tag: string, n: number, city = (i: number) => `City ${i}`) =>
  Array.from({ length: n }, (_, i): [string, string] => [`${tag}-${i}@example.com`, city(i)]);

/** The NDJSON lines of a plan. */
export function planLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** What the sync tests ask of the emulator and of cnv (`run`). */
export function syncTools(fx: EmulatorFixture, run: Run) {
  return {
    /** Requests the emulator processed on a route since the last stats reset (429s not counted). */
    async count(route: string): Promise<number> {
      const byStatus: Record<string, number> = (await fx.stats()).byRouteStatus?.[route] ?? {};
      return Object.entries(byStatus).reduce((n, [status, c]) => (status === '429' ? n : n + c), 0);
    },
    /** A config dir of its own: each test starts without a snapshot unless it says otherwise. */
    envWith(configDir = tempConfigDir(), extra: Record<string, string> = {}) {
      return { ...fx.env, CNV_CONFIG_DIR: configDir, ...extra };
    },
    /** A contact's city, as the account holds it now. */
    async city(email: string): Promise<string> {
      return (await run(['contacts', 'get', '--email', email, '-q', 'fields.city'], { env: fx.env })).stdout.trim();
    },
    /** The snapshot's export state key, its file and its state file (`export state show`). */
    async snapshotOf(env: Record<string, string>): Promise<{ key: string; path: string; stateFile: string }> {
      const states = JSON.parse((await run(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
        key: string;
        output: { path: string };
      }>;
      const { key, output } = states.find((s) => s.key.endsWith('/contacts-sync'))!;
      const shown = JSON.parse((await run(['export', 'state', 'show', key, '--json'], { env })).stdout);
      return { key, path: output.path, stateFile: shown.stateFile as string };
    },
  };
}
