// A throw-away PostgreSQL cluster from Debian's packages, on a free loopback port in a temp dir.
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, run, say, SetupError, tail } from './proc.mjs';

const isRoot = () => process.getuid?.() === 0;

/** The newest /usr/lib/postgresql/<v>/bin that has initdb, or undefined. */
function findBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : undefined;
}

/** PostgreSQL's server binaries, installed from Debian when missing (as root; otherwise a loud failure). */
async function serverBin() {
  let bin = findBin();
  if (bin) return bin;
  if (!isRoot())
    throw new SetupError(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb) and this is not root: run `apt-get update && apt-get install -y postgresql` first',
    );
  say('installing PostgreSQL: apt-get update && apt-get install -y postgresql');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { env });
  await run('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { env });
  bin = findBin();
  if (!bin) throw new SetupError('apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb is there');
  return bin;
}

/** Runs a server binary as the user that owns the cluster (postgres when we are root: it refuses root). */
const asOwner = (bin, tool, args) =>
  isRoot() ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);

/**
 * Starts a cluster in a new temp dir on a free port; resolves to { port, host, user, database,
 * stop(), psql(sql) }; stop() also removes the dir. Trust authentication on loopback only; the
 * socket lives in the dir too.
 */
export async function startPostgres() {
  const bin = await serverBin();
  // Its own temp dir, which the server's user (postgres, when we are root) can enter.
  const top = mkdtempSync(join(tmpdir(), 'cnv-interop-pg-'));
  chmodSync(top, 0o711);
  try {
    return await startCluster(bin, top);
  } catch (e) {
    rmSync(top, { recursive: true, force: true });
    throw e;
  }
}

async function startCluster(bin, top) {
  const dir = join(top, 'cluster');
  mkdirSync(dir, { mode: 0o700 });
  if (isRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new SetupError(
        "running as root, but there is no `postgres` user to run the server as (install Debian's postgresql package)",
      );
    });
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  await asOwner(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8']);
  let port;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await asOwner(bin, 'pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`,
        'start',
      ]);
      break;
    } catch (e) {
      if (attempt >= 2)
        throw new SetupError(
          `PostgreSQL did not start: ${e.message}\n${existsSync(join(dir, 'log')) ? tail(readFileSync(join(dir, 'log'), 'utf8')) : ''}`,
        );
    }
  }
  const psqlBin = join(bin, 'psql');
  const pg = {
    port,
    host: '127.0.0.1',
    user: 'postgres',
    database: 'postgres',
    /** Runs SQL; resolves to stdout (unaligned, tuples only). */
    psql: async (sql) =>
      (
        await run(psqlBin, [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          'postgres',
          '-d',
          'postgres',
          '-X',
          '-q',
          '-A',
          '-t',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          sql,
        ])
      ).stdout,
    stop: async () => {
      await asOwner(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(top, { recursive: true, force: true });
    },
  };
  return pg;
}
