import type { SeedContext } from './seed-context.js';
import { FIXTURE_BASIC_FORMS, FIXTURE_FORMS, type FixtureForm } from './fixtures.js';

/** Seeds the fixture forms (constant; no generated ones). */
export function seedForms({ business }: SeedContext): void {
  const fixtures: FixtureForm[] = Object.values(business.id === 'acme' ? FIXTURE_FORMS : FIXTURE_BASIC_FORMS);
  for (const fx of fixtures) {
    business.forms.set(fx.id, {
      ...fx,
      fields: fx.fields.map(({ options, ...f }) => ({
        ...f,
        ...(options ? { options: options.map((o) => ({ ...o })) } : {}),
      })),
      updatedAt: fx.createdAt,
    });
  }
}
