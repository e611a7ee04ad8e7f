import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { readRegularFileSync } from '../lib/regular-file.js';
import { join } from 'node:path';
import type Conf from 'conf';
import { loadConf } from '../config/load-conf.js';
import { configDirError, type ConfigDirWhere } from '../config/paths.js';
import { shellWord } from '../lib/shell-word.js';
import { CliError, ExitCode, LocalFileError } from '../errors.js';
import { acquireExportLock, type ExportLock } from './lock.js';
import { stateFileStem } from './state-key.js';
import { stateSchema, type ExportState } from './export-state.js';

interface StateFile {
  state?: unknown;
}

type ConfClass = typeof Conf<StateFile>;

/**
 * Export states, one file per key in `<config dir>/exports/`, written by conf (mode 0600,
 * dot-notation off). One file per key means the run holding a key's lock is the only writer of
 * that file: conf has no cross-process safety of its own. conf writes atomically (temp file,
 * fsync, rename); the directory is fsynced after, so a saved state survives a crash of the
 * machine too. Reads parse the file directly; conf (slow to import) loads at the first write.
 */
export class ExportStateStore {
  private confClass?: ConfClass;

  private constructor(
    readonly dir: string,
    private readonly where: ConfigDirWhere,
  ) {}

  /**
   * The store of a config directory. Its directory is made here if it can be; if not, listing or
   * showing states still works and locking a key says why (`lock`). `where`: how messages name
   * the directory (by default, as CNV_CONFIG_DIR).
   */
  static async open(
    configDir: string,
    where: ConfigDirWhere = { dir: configDir, source: 'CNV_CONFIG_DIR' },
  ): Promise<ExportStateStore> {
    const store = new ExportStateStore(join(configDir, 'exports'), where);
    store.makeDir(() => {});
    return store;
  }

  private makeDir(failed: (err: unknown) => void): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      failed(err);
    }
  }

  /**
   * Takes a key's lock (src/exporter/lock.ts), making the directory first (a config directory that
   * cannot hold it: exit 2 or 8, naming it).
   */
  async lock(key: string): Promise<ExportLock> {
    this.makeDir((err) => {
      throw configDirError(err, this.dir, this.where) ?? err;
    });
    return acquireExportLock(this.pathOf(key), key);
  }

  /** The state file of a key (its lock sits beside it, with `.lock` appended). */
  pathOf(key: string): string {
    return join(this.dir, `${stateFileStem(key)}.json`);
  }

  read(key: string): ExportState | undefined {
    const path = this.pathOf(key);
    const state = this.parse(path, key);
    // A hash collision, or a file copied by hand under another key.
    if (state && state.key !== key) throw corrupt(path, `it holds state "${state.key}"`, key);
    return state;
  }

  /** Replaces a key's state in one atomic write, then makes the rename durable. */
  async write(state: ExportState): Promise<void> {
    const Conf = (this.confClass ??= (await loadConf()) as ConfClass);
    const checked = stateSchema.parse(state);
    try {
      const conf = new Conf({
        cwd: this.dir,
        configName: stateFileStem(state.key),
        projectName: 'cnv',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: true, // a damaged file is replaced whole: we write every member anyway
      });
      this.persist(conf, checked);
    } catch (err) {
      throw (
        LocalFileError.from(
          err,
          'export state',
          this.pathOf(state.key),
          'free space or fix the permissions of the config directory, then run again: what was committed stays committed',
        ) ??
        configDirError(err, this.dir, this.where) ??
        err
      );
    }
    this.syncDir();
  }

  /**
   * The one write of a state file (conf: temporary file, fsync, rename; a symbolic link there is
   * refused, src/config/load-conf.ts).
   */
  private persist(conf: Conf<StateFile>, state: ExportState): void {
    conf.store = { state };
  }

  /**
   * Removes the temporary files a killed write of this key's state left (`<file>.tmp-…`). Only
   * under the key's lock: then no other process is writing that state.
   */
  async removeDeadTemps(key: string): Promise<void> {
    const prefix = `${stateFileStem(key)}.json.tmp-`;
    for (const name of this.names()) if (name.startsWith(prefix)) rmSync(join(this.dir, name), { force: true });
  }

  /** Deletes a key's state (even an unreadable one); false when there was none. */
  remove(key: string): boolean {
    const path = this.pathOf(key);
    const existed = existsSync(path);
    rmSync(path, { force: true });
    this.syncDir();
    return existed;
  }

  /** Every saved state, by key. A file that cannot be read goes to `onDamaged` (default: throw). */
  list(
    onDamaged: (err: Error) => void = (err) => {
      throw err;
    },
  ): ExportState[] {
    const states: ExportState[] = [];
    for (const f of this.names().filter((name) => name.endsWith('.json'))) {
      try {
        const state = this.parse(join(this.dir, f));
        if (state) states.push(state);
      } catch (err) {
        onDamaged(err as Error);
      }
    }
    return states.sort((a, b) => a.key.localeCompare(b.key));
  }

  /** The directory's entries; none before the first state was locked. */
  private names(): string[] {
    try {
      return readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw configDirError(err, this.dir, this.where) ?? err;
    }
  }

  private parse(path: string, key?: string): ExportState | undefined {
    let text: string;
    try {
      text = readRegularFileSync(path, { nofollow: true }).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw LocalFileError.from(err, 'export state', path) ?? configDirError(err, path, this.where) ?? err;
    }
    let raw: StateFile;
    try {
      raw = JSON.parse(text) as StateFile;
    } catch (err) {
      throw corrupt(path, (err as Error).message, key);
    }
    if (raw?.state === undefined) return undefined;
    const parsed = stateSchema.safeParse(raw.state);
    if (!parsed.success) {
      // Of an earlier cnv, or edited: a state is read only in the format this version writes
      // (docs/guarantees.md, "Compatibility").
      const issue = parsed.error.issues[0];
      throw corrupt(
        path,
        'it is not a state this version of cnv writes ' +
          `(${issue ? `${issue.path.join('.') || 'state'}: ${issue.message}` : 'unexpected content'})`,
        key,
      );
    }
    return parsed.data;
  }

  private syncDir(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.dir, 'r');
      fsyncSync(fd);
    } catch {
      // Some platforms cannot open or fsync a directory; the rename is then as durable as it gets.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/** `key`, when known, is named in the hint so it can be pasted as it is. */
function corrupt(path: string, why: string, key?: string): CliError {
  return new CliError(`the export state file ${path} cannot be used: ${why}`, {
    exitCode: ExitCode.usage,
    code: 'state_corrupt',
    hint:
      `inspect it; \`cnv export state reset ${key === undefined ? 'KEY' : shellWord(key)}\` removes it, ` +
      'or run the export with --full to start over and replace it',
  });
}
