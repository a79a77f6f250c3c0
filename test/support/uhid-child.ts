/** Drives test/hw/uhid-keyboard.mjs (a fake HID keyboard in its own process) over stdin/stdout. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const UHID_CHILD = fileURLToPath(new URL('../hw/uhid-keyboard.mjs', import.meta.url));

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

  async exit(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    await this.send({ cmd: 'exit' }).catch(() => this.child.kill());
    await exited;
  }
}
