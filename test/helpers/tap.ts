import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { parse } from 'lossless-json';
import { cleanEnv, tempConfigDir, type CliResult } from './cli.js';
import type { EmulatorFixture } from './emulator.js';

/** The package's tap-cnv executable (Meltano's `executable: tap-cnv`). */
export const TAP_BIN = resolve(import.meta.dirname, '../../bin/tap-cnv.js');

/** A Singer message as the tap wrote it (numbers kept as their digits by lossless-json where asked). */
export type Message = Record<string, any>;

/** A config file for the emulator's full key (or `key`), with `extra` settings. */
export function tapConfig(
  fx: EmulatorFixture,
  extra: Record<string, unknown> = {},
  key = fx.emulator.keys.full,
): string {
  const path = join(tempConfigDir(), 'config.json');
  writeFileSync(path, JSON.stringify({ base_url: fx.emulator.url, api_key: key, ...extra }));
  return path;
}

/** A JSON file in a fresh directory. */
export function jsonFile(name: string, doc: unknown): string {
  const path = join(tempConfigDir(), name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

/** The env of a tap run: no CNV_* (the tap reads none), a config directory of its own. */
function tapEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return cleanEnv({ CNV_CONFIG_DIR: tempConfigDir(), ...env });
}

/** Runs tap-cnv to its end. */
export async function tap(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const r = await execa('node', [TAP_BIN, ...args], {
    reject: false,
    env: tapEnv(env),
    extendEnv: false,
    stdin: 'ignore',
    timeout: 120_000,
    stripFinalNewline: false,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Starts tap-cnv (to kill it). */
export function spawnTap(args: string[], env: Record<string, string | undefined> = {}): ResultPromise {
  return execa('node', [TAP_BIN, ...args], {
    reject: false,
    env: tapEnv(env),
    extendEnv: false,
    stdin: 'ignore',
    stripFinalNewline: false,
  }) as unknown as ResultPromise;
}

/** The messages of a run's stdout: every complete line (a killed run's last line may be cut). */
export function messages(stdout: string, exact = false): Message[] {
  const lines = stdout.split('\n');
  lines.pop(); // after the last newline: empty, or a line cut by a kill
  return lines.map((line) => (exact ? parse(line) : JSON.parse(line)) as Message);
}

/** The value of the last STATE message, or undefined. */
export function lastState(msgs: Message[]): Message | undefined {
  return msgs.filter((m) => m.type === 'STATE').at(-1)?.value;
}

/** The RECORDs of one stream. */
export function records(msgs: Message[], stream: string): Message[] {
  return msgs.filter((m) => m.type === 'RECORD' && m.stream === stream).map((m) => m.record);
}

/** A request to the API with the emulator's full key (quicker than a cnv process, to act while a run goes on); throws unless 2xx. */
export async function apiRequest(fx: EmulatorFixture, method: string, path: string, body: unknown): Promise<void> {
  await fx.api(method, path, body);
}
