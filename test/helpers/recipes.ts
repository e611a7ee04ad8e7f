import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The command blocks of the README and docs pages, read from the markdown (so they cannot
// drift) and made scripts that a recipes test runs (test/e2e/export-recipes.test.ts,
// test/e2e/ledger-recipes.test.ts, test/e2e/target-recipes.test.ts).

const ROOT = resolve(import.meta.dirname, '../..');

export interface Block {
  doc: string;
  lang: 'sh' | 'cron';
  text: string;
}

/** The sh and cron blocks of `doc`, from the text `from` to `to` (the whole page without them). */
export function blocks(doc: string, from?: string, to?: string): Block[] {
  let md = readFileSync(join(ROOT, doc), 'utf8');
  if (from) md = md.slice(md.indexOf(from), to ? md.indexOf(to, md.indexOf(from)) : undefined);
  return [...md.matchAll(/```(sh|cron)\n([\s\S]*?)```/g)].map((m) => ({
    doc,
    lang: m[1] as Block['lang'],
    text: m[2],
  }));
}

/**
 * A block as a bash script: comments dropped, every command checked; cron lines without their
 * schedule; a here-document's lines (`cat > a.json <<'JSON'` ... `JSON`) passed as they are.
 */
export function script(block: Block): string {
  const out: string[] = [];
  let until: string | undefined;
  for (const raw of block.text.split('\n')) {
    if (until !== undefined) {
      out.push(raw);
      if (raw.trim() === until) until = undefined;
      continue;
    }
    let line = raw.replace(/\s+#\s.*$/, '').trimEnd();
    if (line === '' || line.startsWith('#')) continue;
    if (block.lang === 'cron') {
      const env = /^([A-Z_]+)=(.*)$/.exec(line);
      if (env) {
        out.push(`export ${env[1]}=${env[2]}`);
        continue;
      }
      line = line.split(/\s+/).slice(5).join(' ').replace(/\\%/g, '%');
    }
    until = /<<-?\s*'?([A-Za-z_]+)'?$/.exec(line)?.[1];
    if (until !== undefined) {
      out.push(line);
      continue;
    }
    out.push(`${line} || { echo "FAILED ($?): ${line.replace(/["$`\\]/g, '\\$&')}" >&2; exit 97; }`);
  }
  return out.join('\n');
}
