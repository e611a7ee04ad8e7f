// The Meltano project of the run: tap-cnv (the repo's bin) and two loaders, each plugin given by
// `executable:` (an absolute path to a prebuilt venv's binary) and no pip_url, so Meltano
// installs nothing and needs no package index at run time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STREAMS } from './account.mjs';
import { run } from './proc.mjs';

const setting = (name, kind, more = {}) => ({ name, ...(kind ? { kind } : {}), ...more });

/**
 * The meltano.yml document (JSON is YAML, so no YAML writer is needed). Without `pg`, no
 * target-postgres; `select`: the extractor's select rules (default: the streams the checks
 * compare with cnv's export, STREAMS; the FULL_TABLE fields and campaigns would add their
 * records to every run's counts).
 */
export function meltanoYml({ tap, venvs, jsonlDir, pg, select }) {
  return {
    project_id: 'cnv-interop',
    send_anonymous_usage_stats: false,
    default_environment: 'interop',
    environments: [{ name: 'interop' }],
    plugins: {
      extractors: [
        {
          name: 'tap-cnv',
          namespace: 'tap_cnv',
          executable: tap,
          capabilities: ['catalog', 'discover', 'state', 'about'],
          settings: [
            setting('base_url', 'string'),
            setting('api_key', 'password', { sensitive: true }),
            setting('start_date', 'date_iso8601'),
            setting('page_size', 'integer'),
          ],
          // base_url and api_key come from TAP_CNV_BASE_URL / TAP_CNV_API_KEY: no key in this file.
          config: { start_date: '2000-01-01T00:00:00Z' },
          select: select ?? Object.keys(STREAMS).map((stream) => `${stream}.*`),
        },
      ],
      loaders: [
        {
          name: 'target-jsonl',
          namespace: 'target_jsonl',
          executable: venvs['target-jsonl'].exe,
          settings: [setting('destination_path', 'string'), setting('do_timestamp_file', 'boolean')],
          config: { destination_path: jsonlDir, do_timestamp_file: false },
        },
        pg && {
          name: 'target-postgres',
          namespace: 'target_postgres',
          executable: venvs['target-postgres'].exe,
          settings: [
            setting('host', 'string'),
            setting('port', 'integer'),
            setting('user', 'string'),
            setting('password', 'password', { sensitive: true }),
            setting('database', 'string'),
            setting('default_target_schema', 'string'),
            setting('hard_delete', 'boolean'),
            setting('add_record_metadata', 'boolean'),
            setting('batch_size_rows', 'integer'),
          ],
          // singer-sdk wants a password even when the server trusts every loopback connection.
          config: {
            host: pg.host,
            port: pg.port,
            user: pg.user,
            password: 'unused',
            database: pg.database,
            default_target_schema: 'cnv',
            hard_delete: true,
            add_record_metadata: true,
          },
        },
      ].filter(Boolean),
    },
  };
}

/**
 * The copy's plugins added to a meltano.yml document: tap-cnv-copy, tap-cnv of another account
 * (inherit_from: its base_url and api_key from TAP_CNV_COPY_*), and cnv's target-cnv (`target`,
 * its executable; its base_url, api_key and report_path from TARGET_CNV_*: no key in the file).
 */
function withCopy(doc, target) {
  doc.plugins.extractors.push({ name: 'tap-cnv-copy', inherit_from: 'tap-cnv' });
  doc.plugins.loaders.push({
    name: 'target-cnv',
    namespace: 'target_cnv',
    executable: target,
    capabilities: ['about', 'activate-version', 'soft-delete'],
    settings: [
      setting('base_url', 'string'),
      setting('api_key', 'password', { sensitive: true }),
      setting('report_path', 'string'),
      setting('streams', 'object'),
      setting('max_failed_rows', 'integer'),
      setting('plan', 'boolean'),
    ],
  });
  return doc;
}

/** Writes the project into `dir` (with `opts.target`, the copy's plugins too); resolves to a runner of `meltano ARGS` in it. */
export function writeProject(dir, opts) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(opts.jsonlDir, { recursive: true });
  const doc = opts.target ? withCopy(meltanoYml(opts), opts.target) : meltanoYml(opts);
  writeFileSync(join(dir, 'meltano.yml'), `${JSON.stringify(doc, null, 2)}\n`);
  const baseEnv = {
    ...process.env,
    MELTANO_SEND_ANONYMOUS_USAGE_STATS: 'false',
    MELTANO_DISABLE_TRACKING: 'true',
    MELTANO_CLI_LOG_LEVEL: 'info',
    TAP_CNV_BASE_URL: opts.emulator.url,
    TAP_CNV_API_KEY: opts.emulator.keys.full,
    NO_COLOR: '1',
  };
  /** `meltano args` in the project; `env` adds variables (a plugin setting, a state backend). */
  return (args, { env = {}, ...more } = {}) =>
    run(opts.venvs.meltano.exe, args, { cwd: dir, env: { ...baseEnv, ...env }, ...more });
}
