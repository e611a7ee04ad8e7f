import { mkdirSync } from 'node:fs';
import { readRegularFileSync } from '../lib/regular-file.js';
import { join } from 'node:path';
import { LocalFileError, UsageError } from '../errors.js';
import { loadConf } from './load-conf.js';
import { configDirError, type ConfigDirWhere } from './paths.js';

export interface Profile {
  apiKey?: string;
  baseUrl?: string;
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

const DEFAULT_PROFILE = 'default';
const FILE_NAME = 'config.json';

/**
 * Profiles in `<config dir>/config.json` (mode 0600). Reads parse the file directly (every
 * command reads it, and importing conf costs more than the rest of a typical command); writes go
 * through conf, which creates the file with mode 0600 and replaces it atomically.
 */
export class ProfileStore {
  readonly path: string;

  private constructor(
    private readonly dir: string,
    private readonly where: ConfigDirWhere,
  ) {
    this.path = join(dir, FILE_NAME);
  }

  /** `where`: how messages name the directory (by default, as CNV_CONFIG_DIR). */
  static async open(dir: string, where: ConfigDirWhere = { dir, source: 'CNV_CONFIG_DIR' }): Promise<ProfileStore> {
    return new ProfileStore(dir, where);
  }

  private read(): ConfigShape {
    let text: string;
    try {
      text = readRegularFileSync(this.path).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw configDirError(err, this.path, this.where) ?? LocalFileError.from(err, 'config file', this.path) ?? err;
    }
    let parsed: Partial<ConfigShape>;
    try {
      parsed = JSON.parse(text) as Partial<ConfigShape>;
    } catch (err) {
      throw new UsageError(
        `the config file ${this.path} is not valid JSON: ${(err as Error).message}`,
        'fix or remove it, then set the key again with `cnv config set-key`',
        'bad_config',
      );
    }
    return { ...parsed, profiles: parsed.profiles ?? {} };
  }

  currentProfile(): string {
    return this.read().currentProfile ?? DEFAULT_PROFILE;
  }

  profile(name: string): Profile | undefined {
    return this.read().profiles[name];
  }

  profiles(): Record<string, Profile> {
    return this.read().profiles;
  }

  /** The profile `name` (`config use`, `config remove`): one that does not exist is a usage error listing those that do. */
  existing(name: string): Profile {
    const found = this.profile(name);
    if (found) return found;
    const known = Object.keys(this.profiles());
    throw new UsageError(
      `no profile named "${name}"`,
      known.length ? `known profiles: ${known.join(', ')}` : 'create one with `cnv --profile NAME config set-key`',
    );
  }

  async update(name: string, patch: Profile): Promise<void> {
    const conf = await this.writer();
    const profiles = { ...conf.get('profiles') };
    profiles[name] = { ...profiles[name], ...patch };
    this.saving(() => conf.set('profiles', profiles));
  }

  /**
   * Deletes a profile, its API key with it. When it was the default, the default moves to the
   * one profile left, or to a profile named "default", else it is unset (commands then use
   * "default", which has no key until one is set). Returns the default in force after, if any.
   */
  async remove(name: string): Promise<{ default: string | null; left: string[] }> {
    const wasCurrent = this.currentProfile() === name;
    const conf = await this.writer();
    const profiles = { ...conf.get('profiles') };
    delete profiles[name];
    const left = Object.keys(profiles);
    const next = !wasCurrent
      ? this.currentProfile()
      : left.length === 1
        ? left[0]
        : left.includes(DEFAULT_PROFILE)
          ? DEFAULT_PROFILE
          : undefined;
    this.saving(() => {
      conf.set('profiles', profiles);
      if (!wasCurrent) return;
      if (next === undefined || next === DEFAULT_PROFILE) conf.delete('currentProfile');
      else conf.set('currentProfile', next);
    });
    return { default: next !== undefined && profiles[next] ? next : null, left };
  }

  async use(name: string): Promise<void> {
    const conf = await this.writer();
    this.saving(() => conf.set('currentProfile', name));
  }

  /** A write of the config file (conf's temporary file, then a rename): a refusal is exit 8 naming the file, not a bug. */
  private saving(write: () => void): void {
    try {
      write();
    } catch (err) {
      throw configDirError(err, this.path, this.where) ?? LocalFileError.from(err, 'config file', this.path) ?? err;
    }
  }

  private async writer() {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw configDirError(err, this.dir, this.where) ?? err;
    }
    // conf reads the file the usual way: something else at its path (a FIFO) is refused first.
    this.read();
    const Conf = await loadConf();
    let conf: InstanceType<typeof Conf<ConfigShape>> | undefined;
    // conf writes its defaults at once when the file is missing: that write may be refused too.
    this.saving(() => {
      conf = new Conf<ConfigShape>({
        cwd: this.dir,
        configName: FILE_NAME.replace(/\.json$/, ''),
        projectName: 'cnv',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        defaults: { profiles: {} },
      });
    });
    return conf!;
  }
}
