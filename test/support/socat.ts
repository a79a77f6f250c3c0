/**
 * A linked pseudo-terminal pair from socat: bytes written to one end come out of the other.
 * `a` plays the device (the test writes/reads it), `b` is the path the driver opens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { requireTool } from './tools.js';
import { sleep } from './shared.js';

export const HAVE_SOCAT = requireTool('socat', spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0, 'socat');

export class PtyPair {
  private child: ChildProcess | null = null;
  readonly a: string;
  readonly b: string;

  constructor(dir: string) {
    this.a = join(dir, 'ttyA');
    this.b = join(dir, 'ttyB');
  }

  /** Start socat and wait until both links exist. */
  async start(timeoutMs = 5000): Promise<void> {
    const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${this.a}`, `pty,raw,echo=0,link=${this.b}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    this.child = child;
    const until = performance.now() + timeoutMs;
    while (!(existsSync(this.a) && existsSync(this.b))) {
      if (child.exitCode !== null) throw new Error(`socat exited with ${child.exitCode}`);
      if (performance.now() > until) throw new Error('socat did not create its ptys');
      await sleep(10);
    }
  }

  /** Kill socat (the "unplug") and wait for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    await exited;
  }
}
