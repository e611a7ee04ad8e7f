import type { SeedContext } from './seed-context.js';
import { FIXTURE_BASIC_WORKFLOWS, FIXTURE_WORKFLOWS, type FixtureWorkflow } from './fixtures.js';

/** Seeds the fixture workflows (constant; no generated ones). */
export function seedWorkflows({ business }: SeedContext): void {
  const fixtures: FixtureWorkflow[] = Object.values(
    business.id === 'acme' ? FIXTURE_WORKFLOWS : FIXTURE_BASIC_WORKFLOWS,
  );
  for (const fx of fixtures) {
    business.workflows.set(fx.id, { ...fx, triggers: [], updatedAt: fx.createdAt });
  }
}
