/**
 * A linked pseudo-terminal pair from socat: bytes written to end `a` come out of end `b`, where
 * the serial scanner driver (or the bare reference script) reads them as from a USB-serial port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './proc.js';

export const haveSocat = (): boolean => spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;

export class PtyPair {
  private child: ChildProcess | null = null;
  readonly a: string;
  readonly b: string;

  constructor(dir: string, name: string) {
    this.a = join(dir, `${name}-dev`);
    this.b = join(dir, `${name}-tty`);
  }

  async start(timeoutMs = 5_000): Promise<void> {
    const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${this.a}`, `pty,raw,echo=0,link=${this.b}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    this.child = child;
    const deadline = performance.now() + timeoutMs;
    while (!(existsSync(this.a) && existsSync(this.b))) {
      if (child.exitCode !== null) throw new Error(`socat exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('socat did not create its ptys');
      await sleep(10);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    await exited;
  }
}
