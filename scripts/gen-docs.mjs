// `npm run docs`: writes docs/commands.md from the built program, and docs/output.md's table of
// every command's JSON output from the commands' declarations.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderJsonTable, renderReference, withJsonTable } from '../dist/cli/reference.js';

writeFileSync(new URL('../docs/commands.md', import.meta.url), await renderReference());
console.error('wrote docs/commands.md');
const output = new URL('../docs/output.md', import.meta.url);
writeFileSync(output, withJsonTable(readFileSync(output, 'utf8'), await renderJsonTable()));
console.error('wrote the JSON output table of docs/output.md');
