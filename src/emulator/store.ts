import { MonotonicClock } from './monotonic-clock.js';
import { ContactBook } from './contact-book.js';
import { randomBytes } from 'node:crypto';
import { cursorSecretFor } from './cursor.js';
import { FieldRegistry } from './field-registry.js';
import { KeyedTargets } from './keyed-targets.js';
import { RelationshipLinks } from './relationship-links.js';
import type {
  Audience,
  Campaign,
  CampaignType,
  Company,
  CustomEvent,
  CustomObject,
  CustomObjectRecord,
  EmailEvent,
  StoredForm,
  Workflow,
} from './model.js';

/**
 * All data of one business (account). Route handlers receive the caller's BusinessStore,
 * so a key can never see another business's data.
 */
export class BusinessStore {
  private readonly secret: () => Buffer;
  private readonly shown: (iso: string) => string;
  readonly contacts: ContactBook;
  readonly companies = new Map<string, Company>();
  readonly fields = new FieldRegistry();
  /** Custom events in insertion order; exports sort as they need. */
  readonly customEvents: CustomEvent[] = [];
  readonly customEventsByClientId = new Map<string, CustomEvent>();
  readonly emailEvents: EmailEvent[] = [];
  readonly audiences = new Map<string, Audience>();
  readonly campaignTypes = new Map<string, CampaignType>();
  readonly campaigns = new Map<string, Campaign>();
  readonly forms = new Map<string, StoredForm>();
  readonly workflows = new Map<string, Workflow>();
  readonly customObjects = new Map<string, CustomObject>();
  /** customObjectId -> clientDedupKey -> record. */
  readonly records = new Map<string, Map<string, CustomObjectRecord>>();
  /** Record id -> record, for relationships that point at records. */
  readonly recordsById = new Map<string, CustomObjectRecord>();
  /** Written relationship values, resolved or pending (relationships.ts). */
  readonly links = new RelationshipLinks();
  /** clientDedupKeys of companies, opportunities, campaigns and campaign members. */
  readonly targets = new KeyedTargets();

  constructor(
    readonly id: string,
    readonly name: string,
    readonly clock: MonotonicClock,
    {
      secret = () => DEMO_SECRET,
      shown = (iso) => iso,
    }: {
      /** The key that signs this emulator's cursors now (cursor.ts: cursorSecretFor; a new epoch at each reset). */
      secret?: () => Buffer;
      /** How contacts' timestamps are shown (EmulatorStore.shownTime): as stored, by default. */
      shown?: (iso: string) => string;
    } = {},
  ) {
    this.secret = secret;
    this.shown = shown;
    this.contacts = new ContactBook(clock);
  }

  /** Key that signs this emulator's cursors: its data and its epoch (made at start and at each reset). */
  get cursorSecret(): Buffer {
    return this.secret();
  }

  /** A timestamp as this server shows it (whole seconds with `--timestamp-precision s`; a stuck clock's time). */
  shownTime(iso: string): string {
    return this.shown(iso);
  }

  /** Stores a custom event and indexes its clientEventId. */
  addCustomEvent(event: CustomEvent): CustomEvent {
    this.clock.observe(event.createdAt);
    this.customEvents.push(event);
    this.customEventsByClientId.set(event.clientEventId, event);
    return event;
  }

  /** Empties every collection (the business itself stays). */
  clear(): void {
    this.contacts.clear();
    this.companies.clear();
    this.fields.clear();
    this.customEvents.length = 0;
    this.customEventsByClientId.clear();
    this.emailEvents.length = 0;
    for (const m of [this.audiences, this.campaignTypes, this.campaigns, this.forms, this.workflows]) m.clear();
    this.customObjects.clear();
    this.records.clear();
    this.recordsById.clear();
    this.links.clear();
    this.targets.clear();
  }
}

/**
 * The whole in-memory state: one BusinessStore per business and one monotonic clock.
 * `reset()` empties everything and runs the seeder given at construction again.
 */
export class EmulatorStore {
  readonly clock = new MonotonicClock();
  private readonly businesses = new Map<string, BusinessStore>();
  /** How contacts' createdAt and updatedAt are shown; stored times keep their milliseconds (the order stays exact). */
  timestampPrecision: TimestampPrecision = 'ms';
  /** The spans of stored time the clock was stuck in (stickClock), each shown as its first millisecond. */
  private stuck: Array<{ from: number; to: number; shown: string }> = [];
  private secret: Buffer;

  constructor(
    businesses: readonly {
      id: string;
      name: string;
    }[],
    private readonly seeder: (store: EmulatorStore) => void = () => {},
    /** What makes the data (cursorSecretFor); a random epoch is added at start and at each reset. */
    private readonly dataSpec = 'seed=demo',
  ) {
    this.secret = epochSecret(dataSpec);
    for (const b of businesses)
      this.businesses.set(
        b.id,
        new BusinessStore(b.id, b.name, this.clock, {
          secret: () => this.secret,
          shown: (iso) => this.shownTime(iso),
        }),
      );
    this.seeder(this);
  }

  /**
   * Sticks the clock (`POST /_emulator/clock`): from now until it is let go, every write shows
   * the same millisecond, the one it stuck at, as two writes within one millisecond do on a
   * real server. The store keeps its own later milliseconds, so the export's order stays exact.
   * The time shown while stuck, or undefined once let go.
   */
  stickClock(stuck: boolean): string | undefined {
    const open = this.stuck.at(-1);
    if (stuck && (open === undefined || open.to !== Infinity)) {
      const from = this.clock.nowMs();
      this.stuck.push({ from, to: Infinity, shown: new Date(from).toISOString() });
    } else if (!stuck && open?.to === Infinity) open.to = this.clock.nowMs();
    const now = this.stuck.at(-1);
    return now?.to === Infinity ? now.shown : undefined;
  }

  /** A contact's stored timestamp as this server shows it. */
  shownTime(iso: string): string {
    let shown = iso;
    if (this.stuck.length > 0) {
      const ms = Date.parse(iso);
      const span = this.stuck.find((s) => ms >= s.from && ms < s.to);
      if (span) shown = span.shown;
    }
    return this.timestampPrecision === 's' ? `${shown.slice(0, 19)}Z` : shown;
  }

  /** The store of a business; throws for an unknown id (a programming error). */
  business(id: string): BusinessStore {
    const b = this.businesses.get(id);
    if (!b) throw new Error(`unknown business ${id}`);
    return b;
  }

  hasBusiness(id: string): boolean {
    return this.businesses.has(id);
  }

  businessIds(): string[] {
    return [...this.businesses.keys()];
  }

  /** Drops all data and re-seeds. */
  reset(): void {
    // A new life: cursors of the earlier one are invalid_cursor, as a real server's would be.
    this.secret = epochSecret(this.dataSpec);
    for (const b of this.businesses.values()) b.clear();
    this.clock.reset();
    this.stuck = [];
    this.seeder(this);
  }
}

/** `ms`: timestamps as stored; `s`: whole seconds (a server of second precision, `--timestamp-precision s`). */
export type TimestampPrecision = 'ms' | 's';

const DEMO_SECRET = cursorSecretFor('seed=demo');

/** The cursor key of one life of the emulator: its data, and an epoch no other life has. */
function epochSecret(dataSpec: string): Buffer {
  return cursorSecretFor(`${dataSpec}|epoch=${randomBytes(16).toString('hex')}`);
}
