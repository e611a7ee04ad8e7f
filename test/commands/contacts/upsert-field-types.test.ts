import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  unlinkSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIELD_CACHE_TTL_MS } from '../../../src/records/field-cache.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';

// `contacts upsert --field` against a server that is only the spec (undici's MockAgent):
// values are converted by the definitions GET /v2/fields lists, which are cached.
const BASE = 'https://api.test';
const KEY = 'sk_live_mock_0123456789abcdef';
let agent: MockAgent;
let env: Record<string, string>;
let dir: string;
let fieldPaths: string[];
let bodies: Array<Record<string, unknown>>;

const def = (objectType: string, key: string, dataType: string) => ({ key, label: key, objectType, dataType });
const CONTACT_FIELDS = [
  def('CONTACT', 'city', 'STRING'),
  def('CONTACT', 'score', 'NUMBER'),
  def('CONTACT', 'vip', 'BOOLEAN'),
  def('CONTACT', 'birthday', 'DATE'),
];
const COMPANY_FIELDS = [def('COMPANY', 'employees', 'NUMBER'), def('COMPANY', 'companyName', 'STRING')];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = tempConfigDir();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: KEY, CNV_CONFIG_DIR: dir, CNV_RATE_SHARE: 'off' };
  fieldPaths = [];
  bodies = [];
  agent
    .get(BASE)
    .intercept({ path: '/v2/contacts', method: 'POST' })
    .reply((req) => {
      bodies.push(JSON.parse(String(req.body)));
      return {
        statusCode: 200,
        data: { data: { cnvContactId: '00000000-0000-4000-8000-000000000001', contactCreated: true } },
      };
    })
    .persist();
});
afterEach(() => agent.close());

/** Answers GET /v2/fields by objectType with these definitions, `times` times, recording each path. */
function fieldsServer(
  times = 1,
  byType: Record<string, unknown[]> = { CONTACT: CONTACT_FIELDS, COMPANY: COMPANY_FIELDS },
) {
  agent
    .get(BASE)
    .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
    .reply((req) => {
      fieldPaths.push(req.path);
      const type = new URL(req.path, BASE).searchParams.get('objectType') ?? '';
      return { statusCode: 200, data: { data: { fields: byType[type] ?? [] }, pagination: { nextCursor: null } } };
    })
    .times(times);
}

const run = (args: string[]) =>
  cnvInProcess(['contacts', 'upsert', '--email', 'a@example.com', ...args], { env, dispatcher: agent });
const cacheDir = () => join(dir, 'cache');
const cacheFile = () =>
  join(
    cacheDir(),
    readdirSync(cacheDir()).find((f) => f.endsWith('.json'))!,
  );

describe('contacts upsert --field: typed by the field definitions', () => {
  it('converts each value to its dataType, asking only the spec-named parameters', async () => {
    fieldsServer();
    const res = await run([
      '--field',
      'city=10115',
      '--field',
      'score=42',
      '--field',
      'vip=yes',
      '--field',
      'birthday=1990-05-01',
    ]);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('');
    expect(bodies[0].fields).toEqual({ city: '10115', score: 42, vip: true, birthday: '1990-05-01' });
    expect(fieldPaths).toEqual(['/v2/fields?objectType=CONTACT&limit=1000']);
  });

  it('converts --company-field by the COMPANY definitions', async () => {
    fieldsServer();
    const res = await run(['--company-field', 'employees=12', '--company-field', 'companyName=007']);
    expect(res.exitCode).toBe(0);
    expect(bodies[0].companyFields).toEqual({ employees: 12, companyName: '007' });
    expect(fieldPaths).toEqual(['/v2/fields?objectType=COMPANY&limit=1000']);
  });

  it('-f sends a string and -F JSON, without reading the definitions', async () => {
    const res = await run([
      '-f',
      'city=10115',
      '-F',
      'score=7',
      '-F',
      'tags=["a"]',
      '-f',
      'vip=true',
      '--company-raw-field',
      'employees=12',
      '--company-typed-field',
      'companyName=null',
    ]);
    expect(res.exitCode).toBe(0);
    expect(bodies[0]).toMatchObject({
      fields: { city: '10115', score: 7, tags: ['a'], vip: 'true' },
      companyFields: { employees: '12', companyName: null },
    });
    expect(fieldPaths).toEqual([]);
  });

  it('a value that does not fit its type is exit 2 naming the flag and field, nothing sent', async () => {
    fieldsServer();
    const res = await run(['--field', 'city=Rome', '--field', 'score=abc']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /^error: invalid_field: --field score: field "score" \(NUMBER\): "abc" is not a number\n/,
    );
    expect(bodies).toEqual([]);
  });

  it('one key under two spellings is exit 2, nothing read or sent', async () => {
    const res = await run(['--field', 'city=1', '-f', 'city=2']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('--field and -f/--raw-field both set field "city"');
    expect(fieldPaths).toEqual([]);
    expect(bodies).toEqual([]);
  });

  it('a key no field has is exit 2 naming the nearest key, for -f, -F and --set too; nothing is sent', async () => {
    fieldsServer(5);
    const cases: Array<[string[], RegExp]> = [
      [
        ['--field', 'ctiy=Oslo'],
        /^error: unknown_field: --field "ctiy": no CONTACT field has this key \(nearest: city\)$/m,
      ],
      [
        ['-f', 'scor=1'],
        /^error: unknown_field: -f\/--raw-field "scor": no CONTACT field has this key \(nearest: score\)$/m,
      ],
      [['-F', 'nope=12'], /^error: unknown_field: -F\/--typed-field "nope": no CONTACT field has this key$/m],
      [
        ['--company-field', 'employes=3'],
        /^error: unknown_field: --company-field "employes": no COMPANY field has this key \(nearest: employees\)$/m,
      ],
      [
        ['--set', 'ctiy=Oslo'],
        /^error: unknown_field: --set "ctiy": is close to the field city: fields go with --field KEY=VALUE$/m,
      ],
      [
        ['--set', 'City=Oslo'],
        /^error: unknown_field: --set "City": names the field city: fields go with --field KEY=VALUE$/m,
      ],
    ];
    for (const [args, message] of cases) {
      const res = await run(args);
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(message);
    }
    expect(bodies).toEqual([]);
    // A body member the spec names but does not spell, like no field: sent.
    expect((await run(['--set', 'preserveExisting=true'])).exitCode).toBe(0);
    expect(bodies[0]).toMatchObject({ preserveExisting: true });
  });

  it('a read-only field is exit 2 before anything is sent', async () => {
    fieldsServer(1, { CONTACT: [...CONTACT_FIELDS, { ...def('CONTACT', 'leadScore', 'NUMBER'), readOnly: true }] });
    const res = await run(['-F', 'leadScore=5']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /^error: invalid_field: -F\/--typed-field leadScore: the CONTACT field "leadScore" is read-only$/m,
    );
    expect(bodies).toEqual([]);
  });
});

describe('the definitions cache', () => {
  it('a second run makes no fields request; the file is 0600 and holds no key', async () => {
    fieldsServer(1);
    expect((await run(['--field', 'city=10115'])).exitCode).toBe(0);
    const second = await run(['--field', 'score=5']);
    expect(second.exitCode).toBe(0);
    expect(fieldPaths).toHaveLength(1);
    expect(bodies[1].fields).toEqual({ score: 5 });
    const file = cacheFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    expect(readFileSync(file, 'utf8')).not.toContain('0123456789abcdef');
    expect(readdirSync(cacheDir())).toHaveLength(1); // no temporary file left behind
  });

  it('the base URL with or without its trailing slash is one account: one cache, one fields request', async () => {
    fieldsServer(1);
    expect((await run(['--field', 'city=10115'])).exitCode).toBe(0);
    env = { ...env, CNV_BASE_URL: `${BASE}/` };
    expect((await run(['--field', 'score=5'])).exitCode).toBe(0);
    expect(fieldPaths).toHaveLength(1);
    expect(bodies[1].fields).toEqual({ score: 5 });
    expect(readdirSync(cacheDir())).toHaveLength(1);
  });

  it('a cache an earlier cnv wrote (named by the base URL as typed and the masked key) is still read', async () => {
    const earlier = createHash('sha256').update(`${BASE}\nsk_live_mock_****`).digest('hex').slice(0, 24);
    mkdirSync(cacheDir(), { recursive: true });
    const saved = { savedAt: Date.now(), fields: CONTACT_FIELDS };
    writeFileSync(
      join(cacheDir(), `fields-${earlier}.json`),
      JSON.stringify({ version: 1, objectTypes: { CONTACT: saved } }),
    );
    const res = await run(['--field', 'city=10115']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('');
    expect(fieldPaths).toEqual([]);
    // A STRING by the cached definitions (without them, sent as the number it parses as).
    expect(bodies[0].fields).toEqual({ city: '10115' });
  });

  it('is read again once older than the TTL', async () => {
    fieldsServer(2);
    await run(['--field', 'city=x']);
    const file = cacheFile();
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    cache.objectTypes.CONTACT.savedAt = Date.now() - FIELD_CACHE_TTL_MS - 1000;
    writeFileSync(file, JSON.stringify(cache));
    expect((await run(['--field', 'city=y'])).exitCode).toBe(0);
    expect(fieldPaths).toHaveLength(2);
    expect(JSON.parse(readFileSync(file, 'utf8')).objectTypes.CONTACT.savedAt).toBeGreaterThan(
      cache.objectTypes.CONTACT.savedAt,
    );
  });

  it('a corrupt cache file is ignored and replaced', async () => {
    fieldsServer(2);
    await run(['--field', 'city=x']);
    writeFileSync(cacheFile(), '{"version":1,"objectTypes":{"CONTACT":{"savedAt":');
    const res = await run(['--field', 'score=3']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('');
    expect(bodies[1].fields).toEqual({ score: 3 });
    expect(fieldPaths).toHaveLength(2);
    expect(JSON.parse(readFileSync(cacheFile(), 'utf8')).version).toBe(1);
  });

  it('a cached list without the key is read again once (a field created since)', async () => {
    fieldsServer(1, { CONTACT: [def('CONTACT', 'city', 'STRING')] });
    await run(['--field', 'city=x']);
    fieldsServer(1, { CONTACT: [def('CONTACT', 'city', 'STRING'), def('CONTACT', 'zip', 'STRING')] });
    expect((await run(['--field', 'zip=10115'])).exitCode).toBe(0);
    expect(bodies[1].fields).toEqual({ zip: '10115' });
    expect(fieldPaths).toHaveLength(2);
  });

  it('a cached list without the key whose refresh fails keeps converting the keys it lists', async () => {
    fieldsServer(1);
    await run(['--field', 'city=x']);
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply(403, { error: { code: 'forbidden', message: 'no' } });
    const res = await run(['--field', 'city=10115', '--field', 'zip=10115']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('');
    expect(bodies[1].fields).toEqual({ city: '10115', zip: 10115 });
  });

  it('a symlink at the cache path is neither read nor written through', async () => {
    fieldsServer(2);
    await run(['--field', 'city=x']);
    const file = cacheFile();
    const planted = join(dir, 'planted.json');
    const fake = {
      version: 1,
      objectTypes: { CONTACT: { savedAt: Date.now(), fields: [def('CONTACT', 'city', 'NUMBER')] } },
    };
    writeFileSync(planted, JSON.stringify(fake));
    unlinkSync(file);
    symlinkSync(planted, file);
    const res = await run(['--field', 'city=10115']);
    expect(res.exitCode).toBe(0);
    expect(bodies[1].fields).toEqual({ city: '10115' });
    expect(fieldPaths).toHaveLength(2);
    expect(JSON.parse(readFileSync(planted, 'utf8'))).toEqual(fake);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
  });

  it('a cache that cannot be written does not stop the run', async () => {
    fieldsServer(2);
    writeFileSync(join(dir, 'cache'), 'not a directory');
    for (const value of ['1', '2']) expect((await run(['--field', `score=${value}`])).exitCode).toBe(0);
    expect(bodies.map((b) => b.fields)).toEqual([{ score: 1 }, { score: 2 }]);
    expect(fieldPaths).toHaveLength(2);
  });

  it('caches per account: another key does not reuse it', async () => {
    fieldsServer(2);
    await run(['--field', 'city=x']);
    env.CNV_API_KEY = 'sk_live_other_0123456789abcdef';
    await run(['--field', 'city=y']);
    expect(fieldPaths).toHaveLength(2);
    expect(readdirSync(cacheDir())).toHaveLength(2);
  });
});

describe('definitions that cannot be read', () => {
  it('no permission: one warning, then values as JSON when they parse, else strings', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply(403, { error: { code: 'forbidden', message: 'Missing permission' } });
    const res = await run(['--field', 'city=10115', '--field', 'name=Ada', '--company-field', 'employees=3']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr.match(/warning:/g)).toHaveLength(1);
    expect(res.stderr).toContain('warning: could not read the field definitions (forbidden: Missing permission)');
    expect(bodies[0]).toMatchObject({ fields: { city: 10115, name: 'Ada' }, companyFields: { employees: 3 } });
    expect(readdirSync(dir)).not.toContain('cache');
  });

  it('an off-contract answer: warning and fallback', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply(200, { data: { fields: 'nope' } });
    const res = await run(['--field', 'score=1']);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toContain('warning: could not read the field definitions');
    expect(bodies[0].fields).toEqual({ score: 1 });
  });
});

describe('contacts upsert --file: CSV field cells typed by the field definitions', () => {
  const upsertFile = (csv: string, extra: string[] = []) => {
    const file = join(dir, 'contacts.csv');
    writeFileSync(file, csv);
    return cnvInProcess(['contacts', 'upsert', '--file', file, '--report', join(dir, 'report.csv'), ...extra], {
      env,
      dispatcher: agent,
    });
  };
  const report = () => readFileSync(join(dir, 'report.csv'), 'utf8');

  it('a spreadsheet zip code stays text in a STRING field, with or without a leading zero; numbers and yes/no convert', async () => {
    fieldsServer(2);
    const res = await upsertFile(
      'email,fields.city,fields.score,fields.vip,companyFields.employees\na@example.com,10115,42,yes,12\nb@example.com,01067, 7 ,no,\nc@example.com,"""80331""",1e3,n,3\n',
    );
    expect(res.exitCode).toBe(0);
    expect(bodies.map((b) => [b.fields, b.companyFields])).toEqual([
      [{ city: '10115', score: 42, vip: true }, { employees: 12 }],
      [{ city: '01067', score: 7, vip: false }, undefined],
      // A STRING field gets the cell's text unchanged, quotes included (no JSON-literal rule once the field is known).
      [{ city: '"80331"', score: 1000, vip: false }, { employees: 3 }],
    ]);
    expect(fieldPaths.map((p) => new URL(p, BASE).searchParams.get('objectType')).sort()).toEqual([
      'COMPANY',
      'CONTACT',
    ]);
  });

  it('a cell that does not fit its field makes that row invalid (invalid_field, naming the column); the other rows are sent', async () => {
    fieldsServer(2);
    const res = await upsertFile(
      'email,fields.score,fields.birthday\na@example.com,abc,1990-05-01\nb@example.com,5,1990-02-31\nc@example.com,6,1990-05-01\n',
    );
    expect(res.exitCode).toBe(6);
    expect(bodies.map((b) => b.email)).toEqual(['c@example.com']);
    // (The report's first line is its header; an invalid row has its place, no hash, and the run's job.)
    const lines = report().trim().split('\n');
    expect(lines[1]).toMatch(
      /^2,a@example\.com,invalid,,invalid_field,"fields\.score: field ""score"" \(NUMBER\): ""abc"" is not a number",1,,"\{.*\}"$/,
    );
    expect(lines[2]).toMatch(
      /^3,b@example\.com,invalid,,invalid_field,"fields\.birthday: field ""birthday"" \(DATE\): .*",2,,"\{.*\}"$/,
    );
  });

  it('a key the definitions do not list refuses the file before a request, naming the nearest field; NDJSON rows are sent as written', async () => {
    fieldsServer(4);
    const res = await upsertFile('email,fields.cty\na@example.com,10115\n');
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(
      'a column that names nothing POST /v2/contacts takes: "fields.cty" (nearest: fields.city)',
    );
    expect(bodies).toEqual([]);
    // Definitions from the cache lack it: asked once more (a field created since), then refused.
    expect(fieldPaths).toHaveLength(4);
    const ndjson = join(dir, 'rows.ndjson');
    writeFileSync(ndjson, '{"email":"b@example.com","fields":{"city":10115}}\n');
    const second = await cnvInProcess(['contacts', 'upsert', '--file', ndjson], { env, dispatcher: agent });
    expect(second.exitCode).toBe(0);
    expect(bodies.map((b) => b.fields)).toEqual([{ city: 10115 }]);
    // The NDJSON run (its keys all the API's) read no definitions.
    expect(fieldPaths).toHaveLength(4);
  });

  it('a CSV without field columns reads no definitions', async () => {
    fieldsServer(2);
    const res = await upsertFile('email,subscriptionStatus\na@example.com,subscribed\n');
    expect(res.exitCode).toBe(0);
    expect(bodies).toEqual([{ email: 'a@example.com', subscriptionStatus: 'SUBSCRIBED' }]);
    expect(fieldPaths).toEqual([]);
  });

  it('definitions that cannot be read: one warning, and cells follow the JSON-when-it-parses rule', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply(403, { error: { code: 'forbidden', message: 'this key cannot read fields' } })
      .times(2);
    const res = await upsertFile('email,fields.city\na@example.com,10115\n');
    expect(res.exitCode).toBe(0);
    expect(res.stderr.match(/could not read the field definitions/g)).toHaveLength(1);
    expect(res.stderr).toContain(
      'fields.KEY columns are sent as JSON when they parse, else as strings, and other columns cannot be matched to fields',
    );
    expect(bodies[0].fields).toEqual({ city: 10115 });
  });
});
