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
import { spawn as nodeSpawn } from 'node:child_process';
import { DeviceError, errorMessage } from '../../errors.js';
import { Backoff, type BackoffOptions } from '../../time.js';
import { HARD_MAX_PULSE_MS } from '../types.js';
import { Helper, READY, runTool, START_TIMEOUT_MS, type CdevEnv, type KillGroupFn, type SpawnFn } from './cdev-helper.js';
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
  REQUEST_FD_HELD,
  setOnceArgs,
  type DetectedChip,
  type GpiodVersion,
  type ToolLine,
} from './gpiod-tools.js';
import { SYSFS_GPIO_ROOT } from './sysfs-chips.js';
import { releaseSysfsExports } from './sysfs-release.js';
import { lineName, type GpioBackend, type InputLine, type InputSpec, type OutputLine, type OutputSpec } from './types.js';
import type { Logger } from '../../log.js';

/**
 * How forceOff tries a busy line again: every 100 ms, a fixed pace (factor 1) well inside the
 * bound it derives from HARD_MAX_PULSE_MS. Safe-state runs from the board profile alone, before
 * any config is trusted, so its pace is the hardware's, not an operator's.
 */
const FORCE_OFF_RETRY: BackoffOptions = { initialMs: 100, maxMs: 100, factor: 1 };

export type { KillGroupFn, SpawnFn } from './cdev-helper.js';

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
    // holds its line request, which the kernel hands out after arming the edge interrupt
    // (REQUEST_FD_HELD). An edge in the few ms between the two requests is the one edge it can miss.
    const helper = new Helper(env, name, lineScript([getArgs(env.version, line, spec.bias)], READY, monArgs(env.version, line, spec.bias), REQUEST_FD_HELD));
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
  /** Where forceOff looks for lock lines left exported through sysfs (tests: a folder of their own). */
  readonly sysfsRoot?: string;
  /** forceOff names the lock lines it found exported through sysfs (and released) here. */
  readonly log?: Pick<Logger, 'warn'>;
}

export class CdevBackend implements GpioBackend {
  readonly kind = 'cdev' as const;
  private readonly lines: (OutputLine | InputLine)[] = [];

  private constructor(
    private readonly env: CdevEnv,
    private readonly chips: readonly DetectedChip[],
    private readonly opts: CdevBackendOptions,
  ) {}

  /** Detect the tools' version and list the chips (by label) once. */
  static async open(opts: CdevBackendOptions = {}): Promise<CdevBackend> {
    const spawn: SpawnFn = opts.spawn ?? ((c, a, o) => nodeSpawn(c, a, o));
    const killGroup: KillGroupFn = opts.killGroup ?? ((pid, signal) => process.kill(-pid, signal));
    // Both tools at once: safe-state runs this before every start, and each tool is a process start.
    const [versionText, detected] = await Promise.all([
      opts.version === undefined ? runTool(spawn, ['gpioset', '--version']) : Promise.resolve(null),
      runTool(spawn, ['gpiodetect']),
    ]);
    let version = opts.version;
    if (versionText !== null) {
      const v = parseGpiodVersion(versionText);
      if (v === null) throw new DeviceError('gpioset', `unknown libgpiod version: ${JSON.stringify(versionText.split('\n')[0])}`);
      version = v;
    }
    if (version === undefined) throw new DeviceError('gpioset', 'no libgpiod version');
    const chips = parseGpiodetect(detected);
    return new CdevBackend({ spawn, killGroup, version }, chips, opts);
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
   * its own timer (at most HARD_MAX_PULSE_MS), which then drives OFF and exits. A line exported
   * through sysfs is released first (sysfs-release.ts). A group still failing at the deadline is
   * set line by line, so that one line held elsewhere does not keep the others of its chip ON.
   */
  async forceOff(specs: readonly OutputSpec[], busyTimeoutMs = HARD_MAX_PULSE_MS + 2000): Promise<void> {
    const groups = new Map<string, ToolLine[]>();
    const sysfs = releaseSysfsExports(specs, this.opts.sysfsRoot ?? SYSFS_GPIO_ROOT);
    if (sysfs.released.length > 0)
      this.opts.log?.warn({ lines: sysfs.released }, 'lock lines were left exported through sysfs: driven OFF there and unexported');
    const failed: string[] = [...sysfs.failed];
    for (const spec of specs) {
      try {
        const l = this.toolLine(spec);
        const key = `${l.chipPath}|${l.activeLow}`;
        groups.set(key, [...(groups.get(key) ?? []), l]);
      } catch (e) {
        failed.push(errorMessage(e));
      }
    }
    const deadline = performance.now() + busyTimeoutMs;
    const retry = new Backoff(FORCE_OFF_RETRY);
    for (const lines of groups.values()) {
      const argv = setOnceArgs(this.env.version, lines[0]!, 0);
      // setOnceArgs ends with "<offset>=0"; add the group's other lines.
      const all = [...argv, ...lines.slice(1).map((l) => `${l.offset}=0`)];
      for (;;) {
        try {
          await runTool(this.env.spawn, all);
          break;
        } catch (e) {
          if (performance.now() >= deadline) {
            if (lines.length === 1) failed.push(`${lines[0]!.chipPath}:${lines[0]!.offset}: ${errorMessage(e)}`);
            else
              for (const l of lines)
                await runTool(this.env.spawn, setOnceArgs(this.env.version, l, 0)).catch((one: unknown) => {
                  failed.push(`${l.chipPath}:${l.offset}: ${errorMessage(one)}`);
                });
            break;
          }
          await retry.pause();
        }
      }
    }
    if (failed.length > 0) throw new DeviceError('gpio cdev', `cannot drive OFF: ${failed.join('; ')}`);
  }

  async close(): Promise<void> {
    for (const l of this.lines.splice(0)) await l.close().catch(() => undefined);
  }
}
