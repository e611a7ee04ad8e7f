import type { BusinessStore } from '../store.js';
import type { Rng } from './prng.js';

/** What a per-resource seeder gets, once per business. */
export interface SeedContext {
  business: BusinessStore;
  /** A stream private to this seeder and business. */
  rng: Rng;
  /** The numeric seed in use. */
  seed: number;
}

/** A per-resource seeder; runs in registration order, once per business. */
export interface Seeder {
  name: string;
  run(ctx: SeedContext): void;
}

/** Generated demo data starts here (fixtures sit just before it). */
export const SEED_EPOCH_MS = Date.parse('2025-01-01T00:00:00.000Z');

export const iso = (ms: number): string => new Date(ms).toISOString();
