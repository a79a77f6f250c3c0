/**
 * The character-device backend: /dev/gpiochipN through Debian's libgpiod tools (package
 * `gpiod`), each line held by one small shell script (gpiod-tools.ts lineScript) that keeps its
 * gpioset/gpiomon running. No addon to compile on the device; both tool generations are
 * supported (version detected once). hardware/README.md explains the choice.
 *
 * Outputs: a change of level replaces the line's helper (set-once, then hold). A pulse is one
 * helper that runs gpioset for exactly `ms` itself, drives the line inactive, then holds it: the
 * pulse ends on time even if this process is killed mid-pulse.
 * Inputs: the helper reads the level (gpioget), then reports every edge (gpiomon); read()
 * returns the level of the last edge, since a line held by gpiomon cannot be read by another request.
 */
import { spawn as nodeSpawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { DeviceError, errorMessage } from '../../errors.js';
import { HARD_MAX_PULSE_MS } from '../types.js';
import {
  getArgs,
  holdArgs,
  lineScript,
  monArgs,
  parseGpiodetect,
  parseGpiodVersion,
  parseGpiogetValue,
  parseGpiomonEvent,
  pulseArgs,
  requestedCheck,
  setOnceArgs,
  type DetectedChip,
  type GpiodVersion,
  type ToolLine,
} from './gpiod-tools.js';
import { lineName, type GpioBackend, type InputLine, type InputSpec, type OutputLine, type OutputSpec } from './types.js';

/** The last hardware boundary: node's spawn (mocked in unit tests). */
export type SpawnFn = (command: string, args: readonly string[], options: { stdio: 'pipe'; detached: boolean }) => ChildProcessWithoutNullStreams;
/** Sends a signal to a helper's whole process group (the script and the tool it runs). */
export type KillGroupFn = (pid: number, signal: NodeJS.Signals) => void;

const READY = 'ready';
/** How long a helper may take to request its line (process start on a Pi: ~10 ms; under QEMU TCG far more). */
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 2_000;

/** A running helper script: its stdout lines, its marker, its exit. */
class Helper {
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
      const done = await Promise.race([this.exitPromise.then(() => true), delay(STOP_TIMEOUT_MS).then(() => false)]);
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

interface CdevEnv {
  readonly spawn: SpawnFn;
  readonly killGroup: KillGroupFn;
  readonly version: GpiodVersion;
}

class CdevOutput implements OutputLine {
  private helper: Helper | undefined;
  private lock: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly env: CdevEnv,
    readonly name: string,
    private readonly line: ToolLine,
  ) {}

  /** Run `fn` after every earlier replace() has finished. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Stop the current helper (a running pulse is cut short) and start the next one. */
  private async replace(steps: string[][], value: 0 | 1): Promise<Helper> {
    await this.helper?.stop();
    const { version } = this.env;
    const h = new Helper(this.env, this.name, lineScript(steps, READY, holdArgs(version, this.line, value)));
    this.helper = h;
    h.onceExit(() => {
      if (this.helper === h) this.helper = undefined;
    });
    return h;
  }

  write(active: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new DeviceError(this.name, 'line closed'));
    const v = active ? 1 : 0;
    return this.exclusive(async () => {
      const h = await this.replace([setOnceArgs(this.env.version, this.line, v)], v);
      await h.waitReady(START_TIMEOUT_MS);
    });
  }

  pulse(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new DeviceError(this.name, 'line closed'));
    const { version } = this.env;
    // Only starting the pulse is exclusive: write(false) (the watchdog, allOff) may cut it short.
    return this.exclusive(() => this.replace([pulseArgs(version, this.line, ms), setOnceArgs(version, this.line, 0)], 0)).then((h) =>
      h.waitReady(ms + START_TIMEOUT_MS),
    );
  }

  /** Nothing to do: gpioset times the pulse itself, in its own process; the bank's overrun check kills it if it hangs. */
  endOfPulse(): void {}

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.write(false);
    } finally {
      this.closed = true;
      await this.exclusive(async () => {
        await this.helper?.stop();
        this.helper = undefined;
      });
    }
  }
}

class CdevInput implements InputLine {
  private value = false;
  private readonly listeners: (() => void)[] = [];
  private closed = false;

  private constructor(
    readonly name: string,
    private readonly helper: Helper,
    version: GpiodVersion,
  ) {
    helper.onLine((text) => {
      const v = parseGpiomonEvent(version, text);
      if (v === null) return;
      this.value = v;
      for (const l of this.listeners) l();
    });
  }

  static async open(env: CdevEnv, name: string, line: ToolLine, spec: InputSpec): Promise<CdevInput> {
    // gpioget first (gpiomon cannot be asked for the level), then gpiomon; "ready" only once gpiomon
    // holds the line. An edge in the few ms between the two requests is the one edge it can miss.
    const helper = new Helper(
      env,
      name,
      lineScript([getArgs(env.version, line, spec.bias)], READY, monArgs(env.version, line, spec.bias), requestedCheck(env.version, line, 'gpiomon')),
    );
    try {
      await helper.waitReady(START_TIMEOUT_MS);
    } catch (e) {
      await helper.stop();
      throw e;
    }
    const input = new CdevInput(name, helper, env.version);
    // First line: gpioget's level. Any further line is an edge gpiomon saw before "ready".
    const [first = '', ...early] = helper.preamble;
    const initial = parseGpiogetValue(first);
    if (initial === null) {
      await helper.stop();
      throw new DeviceError(name, `cannot parse gpioget output: ${JSON.stringify(first)}`);
    }
    input.value = early.reduce((v, line) => parseGpiomonEvent(env.version, line) ?? v, initial);
    return input;
  }

  read(): Promise<boolean> {
    if (this.helper.hasExited && !this.closed) return Promise.reject(new DeviceError(this.name, `gpiomon stopped: ${this.helper.lastError || 'exited'}`));
    return Promise.resolve(this.value);
  }
  onEdge(listener: () => void): void {
    this.listeners.push(listener);
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.helper.stop();
  }
}

export interface CdevBackendOptions {
  readonly spawn?: SpawnFn;
  readonly killGroup?: KillGroupFn;
  /** Detected with `gpioset --version` when not given. */
  readonly version?: GpiodVersion;
}

/** Run a tool to completion; stdout, or a DeviceError with its stderr. */
function runTool(spawn: SpawnFn, argv: readonly string[]): Promise<string> {
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
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new DeviceError(argv[0]!, `exit ${code}: ${err.trim()}`))));
  });
}

export class CdevBackend implements GpioBackend {
  readonly kind = 'cdev' as const;
  private readonly lines: (OutputLine | InputLine)[] = [];

  private constructor(
    private readonly env: CdevEnv,
    private readonly chips: readonly DetectedChip[],
  ) {}

  /** Detect the tools' version and list the chips (by label) once. */
  static async open(opts: CdevBackendOptions = {}): Promise<CdevBackend> {
    const spawn: SpawnFn = opts.spawn ?? ((c, a, o) => nodeSpawn(c, a, o));
    const killGroup: KillGroupFn = opts.killGroup ?? ((pid, signal) => process.kill(-pid, signal));
    let version = opts.version;
    if (version === undefined) {
      const text = await runTool(spawn, ['gpioset', '--version']);
      const v = parseGpiodVersion(text);
      if (v === null) throw new DeviceError('gpioset', `unknown libgpiod version: ${JSON.stringify(text.split('\n')[0])}`);
      version = v;
    }
    const chips = parseGpiodetect(await runTool(spawn, ['gpiodetect']));
    return new CdevBackend({ spawn, killGroup, version }, chips);
  }

  get version(): GpiodVersion {
    return this.env.version;
  }

  private toolLine(spec: OutputSpec | InputSpec): ToolLine {
    const matches = this.chips.filter((c) => c.label === spec.chip);
    const known = this.chips.map((c) => c.label).join(', ') || 'none';
    const name = `gpio ${lineName(spec)}`;
    if (matches.length === 0) throw new DeviceError(name, `no GPIO chip labelled "${spec.chip}" (found: ${known})`);
    if (matches.length > 1) throw new DeviceError(name, `${matches.length} GPIO chips are labelled "${spec.chip}"; labels must be unique`);
    const chip = matches[0]!;
    if (spec.offset >= chip.lines) throw new DeviceError(name, `offset ${spec.offset} is out of range: chip "${spec.chip}" has ${chip.lines} lines`);
    return { chipPath: `/dev/${chip.name}`, offset: spec.offset, activeLow: spec.activeLow };
  }

  async output(spec: OutputSpec): Promise<OutputLine> {
    const line = new CdevOutput(this.env, lineName(spec), this.toolLine(spec));
    await line.write(false);
    this.lines.push(line);
    return line;
  }

  async input(spec: InputSpec): Promise<InputLine> {
    const line = await CdevInput.open(this.env, lineName(spec), this.toolLine(spec), spec);
    this.lines.push(line);
    return line;
  }

  /**
   * One `gpioset` per (chip, activeLow) group, set-and-exit. A line still busy is retried until
   * `busyTimeoutMs`: the only helper that can outlive a killed station is a pulse finishing by
   * its own timer (at most HARD_MAX_PULSE_MS), which then drives OFF and exits.
   */
  async forceOff(specs: readonly OutputSpec[], busyTimeoutMs = HARD_MAX_PULSE_MS + 2000): Promise<void> {
    const groups = new Map<string, ToolLine[]>();
    const failed: string[] = [];
    for (const spec of specs) {
      try {
        const l = this.toolLine(spec);
        const key = `${l.chipPath}|${l.activeLow}`;
        groups.set(key, [...(groups.get(key) ?? []), l]);
      } catch (e) {
        failed.push(errorMessage(e));
      }
    }
    const deadline = Date.now() + busyTimeoutMs;
    for (const lines of groups.values()) {
      const argv = setOnceArgs(this.env.version, lines[0]!, 0);
      // setOnceArgs ends with "<offset>=0"; add the group's other lines.
      const all = [...argv, ...lines.slice(1).map((l) => `${l.offset}=0`)];
      for (;;) {
        try {
          await runTool(this.env.spawn, all);
          break;
        } catch (e) {
          if (Date.now() >= deadline) {
            failed.push(`${lines.map((l) => `${l.chipPath}:${l.offset}`).join(', ')}: ${errorMessage(e)}`);
            break;
          }
          await delay(100);
        }
      }
    }
    if (failed.length > 0) throw new DeviceError('gpio cdev', `cannot drive OFF: ${failed.join('; ')}`);
  }

  async close(): Promise<void> {
    for (const l of this.lines.splice(0)) await l.close().catch(() => undefined);
  }
}
