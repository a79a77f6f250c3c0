/** Drives test/hw/uhid-keyboard.mjs (a fake HID keyboard in its own process) over stdin/stdout. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const UHID_CHILD = fileURLToPath(new URL('../hw/uhid-keyboard.mjs', import.meta.url));

/** The /dev/hidraw* files this process has open (the drivers under test run in it). */
export function openHidraw(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith('/dev/hidraw')) out.push(target);
    } catch {
      // closed meanwhile (e.g. the fd readdir itself used)
    }
  }
  return out;
}

export type UhidCommand =
  | { cmd: 'create'; vendor: number; product: number; name?: string; uniq?: string }
  | { cmd: 'input'; reports: number[][]; gapMs?: number }
  | { cmd: 'destroy' }
  | { cmd: 'exit' };

export class UhidChild {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(line: string) => void> = [];

  constructor(device = '/dev/uhid') {
    this.child = spawn(process.execPath, [UHID_CHILD, device], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.pipe(process.stderr);
    createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
  }

  /** Send one command; resolves when the child has carried it out. */
  send(c: UhidCommand, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`uhid child: no answer to ${c.cmd} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push((line) => {
        clearTimeout(t);
        if (line === `ok ${c.cmd}`) resolve();
        else reject(new Error(`uhid child: ${line}`));
      });
      this.child.stdin.write(`${JSON.stringify(c)}\n`);
    });
  }

  /**
   * End the child, and with it the fake device (the child destroys it; the kernel would on its
   * exit anyway): ask it to exit, and SIGKILL it if it has not exited `timeoutMs` later. Never
   * waits unbounded (an afterEach hook must not hang). Close the driver first (see hid.test.ts).
   */
  async exit(timeoutMs = 5_000): Promise<void> {
    if (this.gone()) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    const exitedWithin = async (ms: number): Promise<boolean> => {
      let t: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((r) => (t = setTimeout(() => r(false), ms)));
      try {
        return await Promise.race([exited.then(() => true), timedOut]);
      } finally {
        clearTimeout(t);
      }
    };
    await this.send({ cmd: 'exit' }, timeoutMs).catch(() => undefined);
    if (this.gone() || (await exitedWithin(timeoutMs))) return;
    process.stderr.write(`uhid child: still running ${timeoutMs} ms after exit; SIGKILL\n`);
    this.child.kill('SIGKILL');
    if (!this.gone() && !(await exitedWithin(timeoutMs))) throw new Error(`uhid child ${this.child.pid}: still running after SIGKILL`);
  }

  private gone(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }
}
