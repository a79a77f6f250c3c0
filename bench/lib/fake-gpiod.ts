/**
 * Stand-ins for Debian's libgpiod tools (gpioset, gpiodetect), for timing safe-state on a machine
 * without GPIO: the last hardware boundary, nothing above it. gpiodetect lists the chips of the
 * Raspberry Pi 4 profile; gpioset answers --version as libgpiod 2 and otherwise writes its
 * arguments, one line per run, into a FIFO the bench reads: the moment that line arrives is the
 * moment the lines would have been driven (a real gpioset is a C program: its own start is of the
 * order of the shell's that runs this one).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';

export interface FakeGpiod {
  /** Put first on PATH. */
  readonly binDir: string;
  /** Resolves with the arrival time (performance.now()) of the next gpioset line that matches. */
  next(match: (line: string) => boolean, timeoutMs: number): Promise<number>;
  close(): void;
}

export function fakeGpiod(dir: string, chips: readonly string[]): FakeGpiod {
  const binDir = join(dir, 'fake-gpiod-bin');
  mkdirSync(binDir, { recursive: true });
  const fifo = join(dir, 'gpioset.fifo');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(binDir, 'gpiodetect'), `#!/bin/sh\n${chips.map((c, i) => `echo 'gpiochip${i} [${c}] (58 lines)'`).join('\n')}\n`);
  writeFileSync(
    join(binDir, 'gpioset'),
    `#!/bin/sh\n[ "$1" = --version ] && { echo 'gpioset (libgpiod) v2.1.3'; exit 0; }\necho "$*" > ${JSON.stringify(fifo)}\n`,
  );
  for (const f of ['gpiodetect', 'gpioset']) chmodSync(join(binDir, f), 0o755);
  // Read-write, so the FIFO never reports end-of-file between two writers; non-blocking, read by
  // the event loop as a pipe (an fs stream would park a thread-pool thread in read() for good).
  const stream = new Socket({ fd: openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
  let waiters: { match: (l: string) => boolean; resolve: (at: number) => void }[] = [];
  let partial = '';
  stream.on('data', (chunk: string | Buffer) => {
    const at = performance.now();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const w = waiters.find((x) => x.match(line));
      if (w === undefined) continue;
      waiters = waiters.filter((x) => x !== w);
      w.resolve(at);
    }
  });
  return {
    binDir,
    next(match, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((x) => x.match !== match);
          reject(new Error(`fake gpioset: no matching line within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push({ match, resolve: (at) => (clearTimeout(timer), resolve(at)) });
      });
    },
    close() {
      stream.destroy();
    },
  };
}
