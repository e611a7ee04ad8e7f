// Starts `cnv emulator` as a separate process (so it runs on the other core) and returns its URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/cnv.js', import.meta.url));

export function startEmulatorProcess(args = []) {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        const info = JSON.parse(buf.slice(0, nl));
        resolve({
          ...info,
          stop: () =>
            new Promise((r) => {
              child.once('exit', r);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
}

/** An admin route of the emulator (`/_emulator/...`): its JSON answer; a write needs the JSON content type the emulator guards with. */
export async function admin(emu, path, init) {
  const res = await fetch(emu.url + path, { ...init, headers: { 'content-type': 'application/json' } });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}
