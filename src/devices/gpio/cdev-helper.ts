/**
 * The processes behind the cdev backend: a Helper is one line's `sh` script (gpiod-tools.ts
 * lineScript) with its marker, output lines and exit; runTool runs a tool to completion.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { DeviceError, errorMessage } from '../../errors.js';
import type { GpiodVersion } from './gpiod-tools.js';

/** The last hardware boundary: node's spawn (mocked in unit tests). */
export type SpawnFn = (command: string, args: readonly string[], options: { stdio: 'pipe'; detached: boolean }) => ChildProcessWithoutNullStreams;
/** Sends a signal to a helper's whole process group (the script and the tool it runs). */
export type KillGroupFn = (pid: number, signal: NodeJS.Signals) => void;

export const READY = 'ready';
/** How long a helper may take to request its line (process start on a Pi: ~10 ms; under QEMU TCG far more). */
export const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 2_000;

/** A running helper script: its stdout lines, its marker, its exit. */
export class Helper {
  readonly child: ChildProcessWithoutNullStreams;
  private ready = false;
  private exited = false;
  private stderr = '';
  private buffered = '';
  private readonly exitPromise: Promise<number | null>;
  private lineListener: ((line: string) => void) | undefined;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** Lines printed before the marker (gpioget's value). */
  readonly preamble: string[] = [];

  constructor(
    private readonly env: CdevEnv,
    readonly name: string,
    script: string,
  ) {
    // detached: its own process group, so an aborted pulse can be killed with its gpioset.
    this.child = env.spawn('sh', ['-c', script], { stdio: 'pipe', detached: true });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    this.child.stdin.on('error', () => undefined); // EPIPE once the helper is gone
    this.exitPromise = new Promise((resolve) => {
      this.child.once('error', (e) => {
        this.stderr += errorMessage(e);
        this.onExit();
        resolve(null);
      });
      this.child.once('exit', (code) => {
        this.onExit();
        resolve(code);
      });
    });
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (!this.ready) {
        if (line.trim() === READY) {
          this.ready = true;
          for (const w of this.readyWaiters.splice(0)) w.resolve();
        } else this.preamble.push(line);
      } else this.lineListener?.(line);
    }
  }

  private onExit(): void {
    this.exited = true;
    const why = this.stderr.trim() || 'helper exited';
    for (const w of this.readyWaiters.splice(0)) w.reject(new DeviceError(this.name, why));
  }

  get isReady(): boolean {
    return this.ready;
  }
  get hasExited(): boolean {
    return this.exited;
  }
  get lastError(): string {
    return this.stderr.trim();
  }

  onLine(listener: (line: string) => void): void {
    this.lineListener = listener;
  }

  onceExit(listener: (code: number | null) => void): void {
    void this.exitPromise.then(listener);
  }

  waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    if (this.exited) return Promise.reject(new DeviceError(this.name, this.lastError || 'helper exited'));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new DeviceError(this.name, `gpiod helper not ready after ${timeoutMs} ms`)), timeoutMs);
      this.readyWaiters.push({
        resolve: () => (clearTimeout(t), resolve()),
        reject: (e) => (clearTimeout(t), reject(e)),
      });
    });
  }

  /**
   * Stop it. A helper past its marker is asked politely (newline: it kills its tool and exits);
   * one still in its steps (a pulse) is killed with its whole process group.
   */
  async stop(): Promise<void> {
    if (this.exited) return;
    if (this.ready) {
      this.child.stdin.end('\n');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS)));
      const done = await Promise.race([this.exitPromise.then(() => true), timedOut]);
      clearTimeout(timer);
      if (done) return;
    }
    this.killGroup('SIGKILL');
    await this.exitPromise;
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      this.env.killGroup(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

export interface CdevEnv {
  readonly spawn: SpawnFn;
  readonly killGroup: KillGroupFn;
  readonly version: GpiodVersion;
}

/** Run a tool to completion; stdout, or a DeviceError with its stderr. */
export function runTool(spawn: SpawnFn, argv: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'pipe', detached: false });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.stderr.on('data', (c: string) => (err += c));
    child.stdin.end();
    child.once('error', (e) => reject(new DeviceError(argv[0]!, `cannot run: ${errorMessage(e)} (install Debian's "gpiod" package)`, { cause: e })));
    // 'close', not 'exit': 'exit' may come before the last of its output has been read (seen under
    // load: gpiodetect's chip list arrived empty, and safe-state could not drive a lock OFF).
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new DeviceError(argv[0]!, `exit ${code}: ${err.trim()}`))));
  });
}
