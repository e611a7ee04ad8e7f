import { mkdirSync } from 'node:fs';
import type Conf from 'conf';

export interface Profile {
  apiKey?: string;
  baseUrl?: string;
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

/** Profiles in `<config dir>/config.json` (mode 0600). conf is loaded lazily: it is costly to import. */
export class ProfileStore {
  private constructor(private readonly conf: Conf<ConfigShape>) {}

  static async open(dir: string): Promise<ProfileStore> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { default: ConfClass } = await import('conf');
    const conf = new ConfClass<ConfigShape>({
      cwd: dir,
      configName: 'config',
      projectName: 'cnv',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      defaults: { profiles: {} },
    });
    return new ProfileStore(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  currentProfile(): string {
    return this.conf.get('currentProfile') ?? DEFAULT_PROFILE;
  }

  profile(name: string): Profile | undefined {
    return this.conf.get('profiles')[name];
  }

  profiles(): Record<string, Profile> {
    return this.conf.get('profiles');
  }

  update(name: string, patch: Profile): void {
    const profiles = { ...this.conf.get('profiles') };
    profiles[name] = { ...profiles[name], ...patch };
    this.conf.set('profiles', profiles);
  }

  use(name: string): void {
    this.conf.set('currentProfile', name);
  }
}
