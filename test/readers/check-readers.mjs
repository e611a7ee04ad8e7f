#!/usr/bin/env node
// Checks every reader of docs/exports.md "Reading the files" on a file holding the hard values
// (hard-values.mjs: CR, LF and CRLF inside values, 00123, 1e5, NA, null, "", \N, 2^53+1, ...):
// each reader, with the options the guide gives, reads exactly what the guide says it reads,
// and the guide names the version installed here. `npm run readers`; `--install` first installs
// what is missing (apt-get: miller csvkit python3-pandas postgresql sqlite3 jq; npm: DuckDB's
// @duckdb/node-api, into a directory of its own). Exit 0 when every claim holds, 1 otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { parse as losslessParse } from 'lossless-json';
import { BIG_NUMBER, HARD_VALUES, makeHardFiles } from './hard-values.mjs';

const GUIDE = resolve(import.meta.dirname, '../../docs/exports.md');
const DUCKDB_DIR = join(tmpdir(), 'cnv-readers-duckdb');
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });

/** What the file holds, as text: every hard value, the big number's digits, a null (sfdcLeadId). */
const EXPECTED = { ...HARD_VALUES, big: BIG_NUMBER };

/** A reader's row as text: a number by its printed digits (lossless), null as null. */
function asText(row) {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      v === null || v === undefined ? null : typeof v === 'object' && v.isLosslessNumber ? v.toString() : String(v),
    ]),
  );
}

/** The columns a reader got other than the file holds ('null' and the text '\N' judged by `nulls`). */
function differences(row, nulls) {
  const got = asText(row);
  const diff = Object.keys(EXPECTED).filter((k) => k !== 'backslashN' && got[k] !== EXPECTED[k]);
  // nulls 'marker': \N is read as text, the null marker and the quoted text alike; 'null': the marker is null, the quoted text is \N.
  const nullOk =
    nulls === 'marker'
      ? got.sfdcLeadId === '\\N' && got.backslashN === '\\N'
      : got.sfdcLeadId === null && got.backslashN === '\\N';
  return nullOk ? diff : [...diff, 'nulls'];
}

const python = (interpreter, code, file) => JSON.parse(sh(interpreter, ['-c', code, file]));
const pythonCsv = (file, newline) =>
  python(
    'python3',
    `import csv, json, sys\nwith open(sys.argv[1], ${newline}encoding="utf-8-sig") as f: print(json.dumps(next(csv.DictReader(f))))`,
    file,
  );

/**
 * The readers, as the guide's table names them (its first column starts with the name), each
 * with how to find its version, how it reads the files with the guide's options, and what the
 * guide says differs (`differs`: the columns not read as they are; `nulls`: how \N reads).
 */
const READERS = [
  {
    name: 'Python csv',
    version: () => sh('python3', ['-c', 'import sys; print(sys.version.split()[0])']).trim(),
    read: ({ csv }) => pythonCsv(csv, 'newline="", '),
    nulls: 'marker',
    differs: [],
    // Without newline="" a CR and a CRLF inside a value become LF (the guide says so).
    more: ({ csv }) =>
      differences(pythonCsv(csv, ''), 'marker').join(',') === 'crlf,cr'
        ? []
        : ['without newline="": expected crlf and cr to change'],
  },
  {
    name: 'pandas',
    install: 'python3-pandas',
    version: () => sh('/usr/bin/python3', ['-c', 'import pandas; print(pandas.__version__)']).trim(),
    read: ({ csv }) =>
      python(
        '/usr/bin/python3',
        'import json, sys, pandas as pd\nd = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False, encoding="utf-8-sig")\nprint(json.dumps(d.iloc[0].to_dict()))',
        csv,
      ),
    nulls: 'marker',
    differs: [],
    more: ({ csv }) => {
      // With na_values=["\\N"] the marker is NaN, and so is a quoted "\N" text (the guide says so).
      const row = python(
        '/usr/bin/python3',
        'import json, sys, pandas as pd\nd = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False, na_values=["\\\\N"], encoding="utf-8-sig")\nprint(json.dumps(d.iloc[0].where(d.iloc[0].notna(), None).to_dict()))',
        csv,
      );
      return row.sfdcLeadId === null && row.backslashN === null
        ? []
        : ['na_values: expected the marker and the quoted text both NaN'];
    },
  },
  {
    name: 'Miller',
    install: 'miller',
    version: () => sh('mlr', ['--version']).trim().replace(/^mlr /, ''),
    read: ({ csv }) => losslessParse(sh('mlr', ['-S', '--icsv', '--ojson', 'cat', csv]))[0],
    nulls: 'marker',
    differs: ['crlf'],
  },
  {
    name: 'csvkit',
    install: 'csvkit',
    version: () =>
      sh('csvjson', ['--version'])
        .trim()
        .replace(/^csvjson /, ''),
    read: ({ csv }) => losslessParse(sh('csvjson', ['-I', '--blanks', '-z', '2147483647', csv]))[0],
    nulls: 'marker',
    differs: ['crlf', 'cr'],
    more: () => {
      // csvcut takes neither -I nor --blanks (the guide says so).
      const refused = ['-I', '--blanks'].filter((flag) => spawnSync('csvcut', [flag, '-c', '1', GUIDE]).status !== 0);
      return refused.length === 2 ? [] : ['expected csvcut to refuse -I and --blanks'];
    },
  },
  {
    name: 'sqlite3',
    install: 'sqlite3',
    version: () => sh('sqlite3', ['--version']).split(' ')[0],
    read: ({ csv, dir }) => {
      const db = join(dir, 'new.db');
      return losslessParse(sh('sqlite3', ['-json', db, `.import --csv ${csv} t`, 'SELECT * FROM t']))[0];
    },
    nulls: 'marker',
    differs: [],
    more: ({ csv, dir }) => {
      // Into a table made first, the header is a row unless --skip 1 (the guide says so).
      const columns = readFileSync(csv, 'utf8')
        .split('\r\n')[0]
        .split(',')
        .map((c) => `"${c}" TEXT`)
        .join(', ');
      const count = (skip) => {
        const db = join(dir, `made-${skip}.db`);
        return sh('sqlite3', [
          db,
          `CREATE TABLE t (${columns});`,
          `.import --csv ${skip ? '--skip 1 ' : ''}${csv} t`,
          'SELECT count(*) FROM t',
        ]).trim();
      };
      return count(false) === '2' && count(true) === '1'
        ? []
        : ['expected the header as a row without --skip 1, and not with it'];
    },
  },
  {
    name: 'PostgreSQL',
    install: 'postgresql',
    version: () => sh('psql', ['--version']).split(' ')[2],
    read: ({ csv }) =>
      withPostgres((psql, dir) => {
        const copy = join(dir, 'h.csv');
        writeFileSync(copy, readFileSync(csv));
        chmodSync(copy, 0o644);
        const columns = readFileSync(csv, 'utf8')
          .split('\r\n')[0]
          .split(',')
          .map((c) => `"${c}" TEXT`)
          .join(', ');
        return losslessParse(
          psql(
            `CREATE TABLE t (${columns}); COPY t FROM '${copy}' WITH (FORMAT csv, HEADER true, NULL '\\N'); SELECT row_to_json(t) FROM t;`,
          )
            .trim()
            .split('\n')
            .at(-1),
        );
      }),
    nulls: 'null',
    differs: [],
  },
  {
    name: 'DuckDB',
    npm: '@duckdb/node-api',
    version: () => duckdb().then(({ version }) => version().replace(/^v/, '')),
    read: ({ csv }) =>
      duckdbRow(`SELECT * FROM read_csv('${csv}', all_varchar=true, nullstr='\\N', allow_quoted_nulls=false)`),
    nulls: 'null',
    differs: [],
    more: async ({ csv }) => {
      // Its defaults guess types (1e5 is a number) and read an empty cell as NULL (the guide says so).
      const row = asText(await duckdbRow(`SELECT * FROM read_csv('${csv}')`));
      return row.exponent !== EXPECTED.exponent && row.empty === null
        ? []
        : ['expected the defaults to change 1e5 and the empty cell'];
    },
  },
  {
    name: 'jq',
    install: 'jq',
    version: () => sh('jq', ['--version']).trim().replace(/^jq-/, ''),
    read: ({ ndjson }) => ({
      ...losslessParse(sh('jq', ['-c', '.fields', ndjson])),
      sfdcLeadId: null,
      backslashN: '\\N',
    }),
    nulls: 'null',
    differs: ['big'],
  },
  {
    name: 'Python json',
    version: () => sh('python3', ['-c', 'import sys; print(sys.version.split()[0])']).trim(),
    read: ({ ndjson }) => ({
      ...losslessParse(
        sh('python3', [
          '-c',
          'import json, sys\nfor line in open(sys.argv[1], encoding="utf-8"): print(json.dumps(json.loads(line)["fields"]))',
          ndjson,
        ]),
      ),
      sfdcLeadId: null,
      backslashN: '\\N',
    }),
    nulls: 'null',
    differs: [],
    more: ({ ndjson }) => {
      // str.splitlines() cuts a row at U+2028 (the guide says so).
      const parts = sh('python3', [
        '-c',
        'import sys; print(len(open(sys.argv[1], encoding="utf-8").read().splitlines()))',
        ndjson,
      ]).trim();
      return parts === '2' ? [] : [`expected splitlines() to cut the one row in two, got ${parts}`];
    },
  },
  {
    name: 'Node.js readline',
    version: () => process.versions.node,
    read: async ({ ndjson }) => {
      const { createInterface } = await import('node:readline');
      const { createReadStream } = await import('node:fs');
      const lines = [];
      for await (const line of createInterface({ input: createReadStream(ndjson) })) lines.push(line);
      if (lines.length !== 1) throw new Error(`readline gave ${lines.length} lines for one row`);
      return { ...JSON.parse(lines[0]).fields, sfdcLeadId: null, backslashN: '\\N' };
    },
    nulls: 'null',
    differs: ['big'],
  },
];

/** A PostgreSQL server of its own (a temporary cluster on a Unix socket), for one call. */
function withPostgres(use) {
  const bin = `/usr/lib/postgresql/${sh('psql', ['--version']).split(' ')[2].split('.')[0]}/bin`;
  const dir = mkdtempSync(join(tmpdir(), 'cnv-readers-pg-'));
  chmodSync(dir, 0o777);
  const asPostgres = (cmd) => sh('su', ['postgres', '-c', cmd]);
  asPostgres(`${bin}/initdb -D ${dir}/data -A trust -U postgres > /dev/null`);
  asPostgres(
    `${bin}/pg_ctl -D ${dir}/data -o "-p 54331 -k ${dir} -c listen_addresses=''" -l ${dir}/log -w start > /dev/null`,
  );
  try {
    return use((sql) => sh('psql', ['-h', dir, '-p', '54331', '-U', 'postgres', '-Atc', sql]), dir);
  } finally {
    asPostgres(`${bin}/pg_ctl -D ${dir}/data -m fast stop > /dev/null`);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function duckdb() {
  return createRequire(join(DUCKDB_DIR, 'package.json'))('@duckdb/node-api');
}

async function duckdbRow(sql) {
  const { DuckDBInstance } = await duckdb();
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  return (await connection.runAndReadAll(sql)).getRowObjectsJson()[0];
}

function install() {
  const apt = READERS.filter((r) => r.install).map((r) => r.install);
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  spawnSync('apt-get', ['install', '-y', '-qq', ...apt], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  mkdirSync(DUCKDB_DIR, { recursive: true });
  if (!existsSync(join(DUCKDB_DIR, 'package.json')))
    writeFileSync(join(DUCKDB_DIR, 'package.json'), '{"private":true}\n');
  spawnSync('npm', ['install', '--no-audit', '--no-fund', '@duckdb/node-api'], { cwd: DUCKDB_DIR, stdio: 'inherit' });
}

/** The guide's row of a reader: the table line whose first cell starts with its name. */
function guideRow(guide, name) {
  return guide.split('\n').find((line) => line.startsWith(`| ${name} `));
}

async function main() {
  if (process.argv.includes('--install')) install();
  const guide = readFileSync(GUIDE, 'utf8');
  const files = await makeHardFiles();
  const problems = [];
  try {
    for (const reader of READERS) {
      const row = guideRow(guide, reader.name);
      let version;
      try {
        version = await reader.version();
      } catch {
        problems.push(`${reader.name}: not installed (npm run readers -- --install)`);
        continue;
      }
      const own = [];
      if (!row) own.push('no row in the guide');
      else if (!row.includes(` ${version} `) && !row.includes(` ${version}:`) && !row.includes(` ${version},`))
        own.push(`the guide does not name version ${version}`);
      const got = differences(await reader.read(files), reader.nulls);
      if (got.join(',') !== reader.differs.join(','))
        own.push(
          `reads ${got.length ? `${got.join(', ')} otherwise` : 'every value as it is'}; the guide says ${reader.differs.length ? reader.differs.join(', ') : 'none'} differs`,
        );
      own.push(...((await reader.more?.(files)) ?? []));
      console.log(
        `${own.length ? 'FAIL' : 'ok  '}  ${reader.name} ${version}${own.length ? `: ${own.join('; ')}` : reader.differs.length ? ` (as the guide says, not exact: ${reader.differs.join(', ')})` : ' (exact)'}`,
      );
      problems.push(...own.map((p) => `${reader.name}: ${p}`));
    }
  } finally {
    files.close();
  }
  console.log(
    `${READERS.length - new Set(problems.map((p) => p.split(':')[0])).size} passed, ${new Set(problems.map((p) => p.split(':')[0])).size} failed`,
  );
  process.exitCode = problems.length ? 1 : 0;
}

await main();
