import type { Ledger } from '../ledger/ledger.js';
import type { LedgerRecord } from '../ledger/ledger-file.js';

// What an audience stream's ledger also holds (docs/target.md, "Removals"): for each key, the
// table version of the last full pass that held it, and the last two passes (their versions,
// how many records each held, how many of those had no key). NUL never starts a key of a
// record (the target refuses such a key), so these entries never meet one.

const SEEN = '\u0000seen:';
const PASSES = '\u0000passes';
/** The prefix of a membership key that a key change left for removal (src/ledger/tracked-rows.ts). */
const REPLACED = '\u0000replaced:';

interface Pass {
  version: number;
  records: number;
  unkeyed: number;
}

interface PassInfo {
  /** The pass records arrive for now (the newest version seen). */
  active: Pass | null;
  /** The pass before it. */
  prev: Pass | null;
}

/** What an ACTIVATE_VERSION means here. */
type Activation =
  /** Older than the pass under way: ignored. */
  | { kind: 'older'; active: number }
  /** The end of the pass its records came in: members it did not hold are removed. */
  | { kind: 'complete'; cutoff: number; unkeyed: number }
  /** The start of a new pass (start-style taps): members absent from the last two passes are removed. */
  | { kind: 'start'; cutoff?: number }
  /** The pass under way announced again, before any of its records: nothing to do. */
  | { kind: 'again' };

/**
 * The passes of one stream of table versions, and the version each key was last seen in, kept in
 * the stream's ledger: records are appended at `drain` (the run writes them before it prints a
 * state that covers them).
 */
export class TablePasses {
  private info: PassInfo;
  private readonly seen = new Map<string, number>();
  private dirty = false;

  constructor(private readonly ledger: Ledger) {
    const saved = ledger.entries.get(PASSES)?.digest;
    this.info = saved ? (JSON.parse(saved) as PassInfo) : { active: null, prev: null };
  }

  /** Whether a record of `version` starts a new pass (newer than the one under way). */
  startsPass(version: number): boolean {
    return this.info.active === null || version > this.info.active.version;
  }

  /** A new pass of `version` starts: returns the version before which members are absent from the last two full passes, if both held records. */
  start(version: number): number | undefined {
    const { active, prev } = this.info;
    const cutoff = active && prev && whole(active) && whole(prev) ? prev.version : undefined;
    this.info = { active: { version, records: 0, unkeyed: 0 }, prev: active };
    this.dirty = true;
    return cutoff;
  }

  /** A record of `version` keyed `key` (undefined: it has none, and so no removal follows this pass). */
  see(key: string | undefined, version: number): void {
    const active = this.info.active;
    if (active && version === active.version) {
      active.records++;
      if (key === undefined) active.unkeyed++;
      this.dirty = true;
    }
    if (key !== undefined && version > (this.lastSeen(key) ?? -Infinity)) this.seen.set(key, version);
  }

  /** ACTIVATE_VERSION `version`, read after everything before it. */
  activate(version: number): Activation {
    const active = this.info.active;
    if (active && version < active.version) return { kind: 'older', active: active.version };
    if (active && version === active.version)
      return active.records > 0 ? { kind: 'complete', cutoff: version, unkeyed: active.unkeyed } : { kind: 'again' };
    return { kind: 'start', cutoff: this.start(version) };
  }

  /** The members (keys the ledger holds with a contact) last seen in `cutoff` or later: those a removal keeps. */
  keptSince(cutoff: number): Set<string> {
    const kept = new Set<string>();
    for (const [key, entry] of this.ledger.entries) {
      if (entry.id === undefined || key.startsWith(REPLACED)) continue;
      if ((this.lastSeen(key) ?? -Infinity) >= cutoff) kept.add(key);
    }
    return kept;
  }

  /** Every member key but those `gone` names, and the keys a key change left (a deletion removes only what it names). */
  allBut(gone: ReadonlySet<string>): Set<string> {
    const kept = new Set<string>();
    for (const [key, entry] of this.ledger.entries) if (entry.id !== undefined && !gone.has(key)) kept.add(key);
    return kept;
  }

  /** What changed since the last drain, as ledger records. */
  drain(): LedgerRecord[] {
    const records: LedgerRecord[] = [];
    for (const [key, version] of this.seen) records.push(['put', `${SEEN}${key}`, String(version), 'ok', null, null]);
    this.seen.clear();
    if (this.dirty) records.push(['put', PASSES, JSON.stringify(this.info), 'ok', null, null]);
    this.dirty = false;
    return records;
  }

  private lastSeen(key: string): number | undefined {
    const here = this.seen.get(key);
    if (here !== undefined) return here;
    const saved = this.ledger.entries.get(`${SEEN}${key}`)?.digest;
    return saved === undefined ? undefined : Number(saved);
  }
}

/** A pass that held records, each with a key. */
const whole = (pass: Pass) => pass.records > 0 && pass.unkeyed === 0;
