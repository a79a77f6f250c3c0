/**
 * The supervisor owns the running station: the config it was started from and the one it runs,
 * reloading (validate the file first — a bad one changes nothing — then apply what changed as each
 * key's class says: live keys under the running station, station keys by stopping it, every lock
 * OFF and hardware released, and starting it again once no reader uses it; see plan.ts), service
 * mode (which carries over a reload), the one exclusive runner every long job goes through
 * (runner.ts: a reload, a self-test; its invariants are there), and whether the station is free:
 * the core's rules (station/core/activity.ts) asked of the current state. Nothing here polls: it
 * waits on the runtime's transitions (until.ts), and every wait and step has a config limit.
 *
 * Its clients — the technician port, SIGHUP, the update lock, metrics, the systemd watchdog — ask
 * it; nothing it builds on (station, config, devices) knows it.
 */
import type { RunningStation } from '../app.js';
import { applyClasses, changedKeys, type ApplyOn } from '../config/apply.js';
import { loadConfigFile, logConfigWarnings, type LoadedConfig } from '../config/load.js';
import { configSchema, type Config } from '../config/schema.js';
import { ConfigError, errorMessage, type ConfigProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { notFreeReason, readerActivity, SERVICE_FAULT, technicianOpenCheck, type TechnicianOpenCheck } from '../station/core.js';
import type { CoreConfig } from '../station/core-types.js';
import { settlesWithin } from '../time.js';
import { StationObserver } from './observe.js';
import { planReload, type ReloadPlanKind } from './plan.js';
import { SupervisorRefusal } from './refusal.js';
import { ExclusiveRunner } from './runner.js';
import { untilState } from './until.js';

export interface SupervisorOptions {
  /** The config file to re-read on reload; null: reload is not available. */
  readonly configFile: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /**
   * Starts a station from a loaded config (the daemon: startStation); `signal` ends the start at its
   * next step (the supervisor stopping, or the start past `timing.stationSwapLimitMs`).
   */
  readonly start: (loaded: LoadedConfig, signal: AbortSignal) => Promise<RunningStation>;
  /** Neither the new nor the old config could be started again: the process should exit (systemd restarts it). */
  readonly onFatal: (e: unknown) => void;
}

export type ReloadResult =
  | {
      readonly ok: true;
      /** What the reload did (plan.ts): nothing changed, live keys swapped in, or the station restarted. */
      readonly applied: ReloadPlanKind;
      /** `process` keys whose value differs from the one the process started with. */
      readonly restartNeeded: readonly string[];
      /** The version (content digest) of the file now running; null if not from a file. */
      readonly version: string | null;
    }
  | { readonly ok: false; readonly source: string; readonly problems: readonly ConfigProblem[] };

/** A client's own validation of a new config (throws ConfigError to refuse the reload). */
export type ReloadCheck = (loaded: LoadedConfig) => void;

const STOPPING = 'the station is stopping';

let classes: ReadonlyMap<string, ApplyOn> | null = null;
/** Every config key's reload class (config/apply.ts), walked once. */
export const configApplyClasses = (): ReadonlyMap<string, ApplyOn> => (classes ??= applyClasses(configSchema));

export class Supervisor {
  readonly observer = new StationObserver();
  /** The config the process started with: what keys read once at start (class `process`) still use. */
  readonly startConfig: Config;
  private current: { station: RunningStation; loaded: LoadedConfig; startedAt: number } | null;
  /** Monotonic time the station swap in progress began (current is null meanwhile). */
  private swapStartedAt = 0;
  private service = false;
  private stopped = false;
  private readonly checks: ReloadCheck[] = [];
  private readonly runner = new ExclusiveRunner();
  /** The config the station runs, or ran until the swap in progress (never null, unlike current). */
  private lastLoaded: LoadedConfig;
  /** The old station's stop while a reload swaps it: a stop of the supervisor waits for it too. */
  private swapStop: Promise<void> = Promise.resolve();

  /** `loaded` is what `station` was started from. */
  constructor(
    station: RunningStation,
    loaded: LoadedConfig,
    private readonly opts: SupervisorOptions,
  ) {
    this.startConfig = loaded.config;
    this.lastLoaded = loaded;
    this.current = { station, loaded, startedAt: performance.now() };
    this.observer.attach(station.runtime);
  }

  /** The running station; refused ('reloading') while a reload swaps it. */
  get station(): RunningStation {
    return this.running().station;
  }
  /** The config the running station's core runs on: its runtime's own, never derived again here. */
  get core(): CoreConfig {
    return this.running().station.runtime.core;
  }
  /** The config the station runs: the one it was started from, with any live keys a reload applied since. */
  get config(): Config {
    return this.running().loaded.config;
  }
  /** The running station and its box table, or null while a reload swaps it. */
  now(): { readonly station: RunningStation; readonly core: CoreConfig } | null {
    return this.current === null ? null : { station: this.current.station, core: this.current.station.runtime.core };
  }
  /** Whether a reload is between stopping the old station and installing the new one. */
  get swapping(): boolean {
    return this.current === null;
  }

  private running(): NonNullable<Supervisor['current']> {
    if (this.current === null) throw new SupervisorRefusal('reloading', 'the station is restarting with a new config; try again in a moment');
    return this.current;
  }

  /**
   * The watchdog's sign of life: when the current station last finished a /state, or when it was
   * started if none has finished yet (a station just restarted by a reload is as fresh as its start).
   * While a reload swaps the station, the time the swap began.
   */
  lastStateOutcome(): number {
    if (this.current === null) return this.swapStartedAt;
    return this.current.station.runtime.lastStateOutcome() ?? this.current.startedAt;
  }

  /** Whether service mode is on (the core reports /state DOWN "service" while it is). */
  get inService(): boolean {
    return this.service;
  }

  /** Turn service mode on or off. */
  setService(on: boolean): void {
    this.service = on;
    this.station.runtime.dispatch({ type: 'fault', key: SERVICE_FAULT, message: on ? 'service' : null });
  }

  /**
   * Run a technician's long action (a self-test) through the runner now: refused ('busy') while
   * another long job (a reload, a self-test) runs or waits. `fn` is handed the runner's signal,
   * aborted when the supervisor stops.
   */
  exclusive<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.runner.startNow(what, fn);
  }

  /** The long job running now, or null. */
  get busyWith(): string | null {
    return this.runner.busyWith;
  }

  /** Why someone is using the station now (core/activity.ts readerActivity), or null; a swap counts. */
  readerActivity(): string | null {
    const now = this.current;
    if (now === null) return 'the station is restarting with a new config';
    return readerActivity(now.station.runtime.core, now.station.runtime.snapshot());
  }

  /**
   * Resolves when the station is free for an action that acts as a reader (injected input, a
   * self-test); refused ('busy') otherwise. A heartbeat in flight is waited out (at most
   * `timing.technicianQuietWaitMs`): it says nothing about a reader.
   */
  async whenFree(): Promise<void> {
    const reason = (await this.afterQuiet()).notFree;
    if (reason !== null) throw new SupervisorRefusal('busy', `not now: ${reason}`);
  }

  /**
   * The core's decision on a technician's box opening now (core/activity.ts technicianOpenCheck):
   * whether it is a rescue open and what blocks it. Refused ('busy') when something does; resolves
   * with the decision (its `rescue` is what an audit line says). A heartbeat in flight is waited
   * out briefly; in a rescue the deactivated heartbeat may stay in flight, and that is allowed.
   */
  async whenFreeToOpen(): Promise<TechnicianOpenCheck> {
    const check = (await this.afterQuiet()).open;
    if (check.blocker !== null) throw new SupervisorRefusal('busy', `not now: ${check.blocker}`);
    return check;
  }

  private async afterQuiet(): Promise<{ notFree: string | null; open: TechnicianOpenCheck }> {
    const busy = this.runner.busyWith;
    if (busy !== null) throw new SupervisorRefusal('busy', `${busy} in progress`);
    await untilState(this.station.runtime, (s) => s.inFlight === null, this.config.timing.technicianQuietWaitMs);
    const snap = this.station.runtime.snapshot();
    return { notFree: notFreeReason(this.core, snap), open: technicianOpenCheck(this.core, snap) };
  }

  /** Add a client's validation of a reloaded config (a bad one refuses the reload like a schema problem). */
  addReloadCheck(check: ReloadCheck): void {
    this.checks.push(check);
  }

  /**
   * Re-read and validate the config file and apply it (plan.ts): a bad file answers its problems
   * and changes nothing; live keys are applied under the running station; station keys restart it
   * once no reader uses it (waiting at most `timing.reloadWaitLimitMs`, then refused 'busy').
   * Asked while a reload runs, it is queued behind it and answered by a run that reads the file
   * after the request (the runner joins it to the one waiting): never dropped. Asked while a
   * self-test runs, it waits for it.
   */
  reload(): Promise<ReloadResult> {
    if (this.opts.configFile === null) return Promise.reject(new SupervisorRefusal('no_config_file', 'this station was not started from a config file'));
    return this.runner.enqueue('reload', (signal) => this.reloadOnce(signal));
  }

  /** Whether a reload runs now (one asked meanwhile is queued behind it). */
  get reloading(): boolean {
    return this.runner.runs('reload');
  }

  private async reloadOnce(signal: AbortSignal): Promise<ReloadResult> {
    const file = this.opts.configFile ?? '';
    let loaded: LoadedConfig;
    try {
      loaded = loadConfigFile(file, this.opts.env);
      for (const check of this.checks) check(loaded);
    } catch (e) {
      if (e instanceof ConfigError) return { ok: false, source: e.source, problems: e.problems };
      throw e;
    }
    logConfigWarnings(this.opts.log, file, loaded.warnings);
    const plan = planReload(configApplyClasses(), { started: this.startConfig, running: this.config }, loaded.config);
    if (plan.kind === 'restart-station') await this.restartStation(loaded, signal);
    else {
      this.current = { ...this.running(), loaded };
      this.lastLoaded = loaded;
    }
    this.opts.log.level = loaded.config.log.level;
    if (plan.kind !== 'nothing') this.opts.log.info({ applied: plan.kind, changed: [...plan.changed.live, ...plan.changed.station] }, 'config reloaded');
    return { ok: true, applied: plan.kind, restartNeeded: plan.restartNeeded, version: loaded.version ?? null };
  }

  /**
   * Station keys changed: once no reader uses the station (at most `timing.reloadWaitLimitMs`),
   * stop it (every lock OFF) and start it with `loaded`; the stop and the start get at most
   * `timing.stationSwapLimitMs` each. A swap that cannot end — the old station does not stop, or
   * neither config starts in time — is fatal: the process exits and systemd starts it again.
   */
  private async restartStation(loaded: LoadedConfig, signal: AbortSignal): Promise<void> {
    const limitMs = this.config.timing.reloadWaitLimitMs;
    const busy = this.readerActivity();
    if (busy !== null) {
      this.opts.log.info({ reason: busy, limitMs }, 'reload waits until the station is free');
      const { runtime } = this.station;
      const { core } = runtime;
      const free = await untilState(runtime, (s) => readerActivity(core, s) === null, limitMs, signal);
      if (signal.aborted) throw new SupervisorRefusal('busy', STOPPING);
      if (!free)
        throw new SupervisorRefusal('busy', `not now: ${this.readerActivity() ?? busy} (waited ${Math.round(limitMs / 1000)} s; the running config stays)`);
    }
    const swapLimitMs = this.config.timing.stationSwapLimitMs;
    const old = this.running();
    this.current = null;
    this.swapStartedAt = performance.now();
    // Stop first: locks OFF and hardware released before the new config requests it again.
    this.swapStop = old.station.stop();
    if (!(await settlesWithin(this.swapStop, swapLimitMs))) this.fatal(`the old station did not stop within ${swapLimitMs} ms`);
    if (signal.aborted) throw new SupervisorRefusal('busy', STOPPING);
    let station: RunningStation;
    try {
      station = await this.startWithin(loaded, swapLimitMs, signal);
    } catch (e) {
      // Stopping: the start ended at its next step and stopped what it had opened; nothing starts again.
      if (signal.aborted) throw new SupervisorRefusal('busy', STOPPING);
      this.opts.log.error({ error: errorMessage(e) }, 'the new config did not start; starting the previous one again');
      // A start that ran late still holds what it opened (GPIO lines are exclusive): the previous
      // config can only start once that start has ended and its station is stopped again.
      if (e instanceof LateStart && !(await settlesWithin(e.released, swapLimitMs)))
        this.fatal(`the new config neither started nor let its hardware go within ${swapLimitMs} ms more`);
      try {
        this.install(await this.startWithin(old.loaded, swapLimitMs, signal), old.loaded);
      } catch (e2) {
        if (signal.aborted) throw new SupervisorRefusal('busy', STOPPING);
        this.fatal(`the previous config did not start again either: ${errorMessage(e2)}`);
      }
      throw new SupervisorRefusal('start_failed', `the new config did not start: ${errorMessage(e)}; the previous config runs again`);
    }
    this.install(station, loaded);
  }

  /**
   * Start a station, or reject after `limitMs` with a LateStart: the late start is aborted (it ends
   * at its next step) and one that started all the same is stopped at once. `signal` (the job's)
   * aborts the start too.
   */
  private async startWithin(loaded: LoadedConfig, limitMs: number, signal: AbortSignal): Promise<RunningStation> {
    const late = new AbortController();
    const starting = this.opts.start(loaded, AbortSignal.any([signal, late.signal]));
    if (await settlesWithin(starting, limitMs)) return starting;
    late.abort();
    const released = starting.then(
      (late) => late.stop(),
      () => undefined,
    );
    this.swapStop = Promise.all([this.swapStop, released]).then(() => undefined);
    throw new LateStart(limitMs, released);
  }

  private fatal(why: string): never {
    const e = new Error(why);
    this.opts.log.fatal({ error: why }, 'the station cannot be swapped; the process must restart');
    this.opts.onFatal(e);
    throw new SupervisorRefusal('start_failed', why);
  }
  /** `process` keys whose value in the running config differs from the one the process started with: a restart applies them. */
  restartNeeded(): readonly string[] {
    return changedKeys(configApplyClasses(), this.startConfig, this.lastLoaded.config).process;
  }

  /** The config file a reload reads; null when the station was not started from one. */
  get configFile(): string | null {
    return this.opts.configFile;
  }

  /** The version (content digest) of the config file the station runs; null when not started from a file. */
  get configVersion(): string | null {
    return this.lastLoaded.version ?? null;
  }

  private install(station: RunningStation, loaded: LoadedConfig): void {
    // Stopped while the new station was starting: it must not run on unattended.
    if (this.stopped) this.swapStop = station.stop();
    this.current = { station, loaded, startedAt: performance.now() };
    this.lastLoaded = loaded;
    this.observer.attach(station.runtime);
    if (this.service) this.setService(true);
  }

  /**
   * Stop the station (every lock OFF), and the one a reload is swapping out if any; the runner is
   * closed first: the job running is aborted (its waits end now) and every waiting and later one
   * refused. Waits for that job, and for a swapped-out station's stop, at most
   * `timing.stationSwapLimitMs` each (the process's stop bounds the whole: supervised.ts). Idempotent.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const limitMs = this.lastLoaded.config.timing.stationSwapLimitMs;
    const job = this.runner.close(STOPPING, limitMs);
    this.observer.close();
    // The station swapped out, or one the aborted job installed meanwhile (install() stops it at once).
    const swapped = async (): Promise<void> => void (await settlesWithin(this.swapStop, limitMs));
    await Promise.all([this.current?.station.stop(), swapped(), job]);
    await swapped();
  }
}

/** A station start that did not end in time; `released` settles once it has ended and is stopped again. */
class LateStart extends Error {
  constructor(
    limitMs: number,
    readonly released: Promise<void>,
  ) {
    super(`not started within ${limitMs} ms`);
    this.name = 'LateStart';
  }
}
