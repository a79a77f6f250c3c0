/**
 * `process.exit` does not return before libuv has joined its thread pool: a pool thread held by a
 * read that never ends (node-hid's read of an open device, a FIFO nobody writes) keeps the process
 * alive for ever after it said it exits. `exitProcess` (src/exit.ts) first runs what was registered
 * to let such a read go. Here the held thread is a real `fs.read` of a FIFO in a real process — the
 * same join the daemon's HID reads met on the virtual board (record 0133), also when the code that
 * registers and the code that exits are separate copies of the module, as in the release's bundles.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

const EXIT = pathToFileURL(join(import.meta.dirname, '../../dist/src/exit.js')).href;
let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'exit-pool-'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A process whose pool thread reads the FIFO; `release`: it registers writing one byte to it.
 * `copies`: the registering and the exiting code each load their own instance of the module, as
 * the release's main.js and the daemon's bundled file each carry one.
 */
function holder(release: boolean, copies = false): { exited: Promise<number | null>; said: Promise<void> } {
  const script = `
    import { openSync, read, writeSync } from 'node:fs';
    import { releaseAtExit } from ${JSON.stringify(copies ? `${EXIT}?opens-devices` : EXIT)};
    import { exitProcess } from ${JSON.stringify(copies ? `${EXIT}?exits` : EXIT)};
    const fd = openSync(${JSON.stringify(join(dir, 'fifo'))}, 'r+');
    read(fd, Buffer.alloc(1), 0, 1, null, () => undefined);
    if (${release}) releaseAtExit(() => writeSync(fd, 'x'));
    setTimeout(() => { process.stdout.write('exiting\\n'); exitProcess(3); }, 200);`;
  const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  child = c;
  const said = new Promise<void>((resolve) => c.stdout.on('data', (d: Buffer) => d.toString().includes('exiting') && resolve()));
  const exited = new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));
  return { exited, said };
}

it('with the read registered, exitProcess lets it go and the process ends with its code', async () => {
  const { exited, said } = holder(true);
  await said;
  expect(await exited).toBe(3);
});

it('registered in one copy of the module and exited from another: let go all the same', async () => {
  const { exited, said } = holder(true, true);
  await said;
  expect(await exited).toBe(3);
});

it('without it, the process has said it exits and is still there two seconds later (what the daemon met)', async () => {
  const { exited, said } = holder(false);
  await said;
  const ended = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000))]);
  expect(ended).toBe(false);
  expect(child?.exitCode).toBeNull();
});
