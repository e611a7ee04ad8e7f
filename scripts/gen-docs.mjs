// `npm run docs`: writes docs/commands.md from the built program.
import { writeFileSync } from 'node:fs';
import { renderReference } from '../dist/cli/reference.js';

writeFileSync(new URL('../docs/commands.md', import.meta.url), await renderReference());
console.error('wrote docs/commands.md');
