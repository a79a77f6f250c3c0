/**
 * Holds the running station for the technician port and replaces it on a config reload:
 * validate the file first (a bad one changes nothing), then stop the old station (every lock OFF,
 * hardware released) and start the new one. Service mode carries over a reload.
 *
 * Long actions (self-test, reload) take the host's one action slot, so they never overlap.
 */
import type { Station } from '../app.js';
import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import { applyClasses, changedKeys, type ApplyOn } from '../config/apply.js';
import { configSchema, type StationConfig } from '../config/schema.js';
import { ConfigError, errorMessage, type ConfigProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { coreConfigOf } from '../station/runtime.js';
import type { CoreConfig } from '../station/core-types.js';
import { loadTokenEntries, TokenStore } from './auth.js';
import { SERVICE_FAULT, readerActivity } from './guards.js';
import { HttpError } from './http.js';
import { StationObserver } from './observe.js';

export interface HostOptions {
  /** The config file to re-read on reload; null: reload is not available. */
  readonly configFile: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /** Starts a station from a loaded config (the daemon: startStation). */
  readonly start: (loaded: LoadedConfig) => Promise<Station>;
  /** Neither the new nor the old config could be started again: the process should exit (systemd restarts it). */
  readonly onFatal: (e: unknown) => void;
}

export type ReloadResult =
  | { readonly ok: true; readonly restartNeeded: readonly string[] }
  | { readonly ok: false; readonly source: string; readonly problems: readonly ConfigProblem[] };

let classes: ReadonlyMap<string, ApplyOn> | null = null;
/** Every config key's reload class (config/apply.ts), walked once. */
export const configApplyClasses = (): ReadonlyMap<string, ApplyOn> => (classes ??= applyClasses(configSchema));

export class StationHost {
  /** The config the process started with: what keys read once at start (class `process`) still use. */
  readonly startConfig: StationConfig;
  readonly observer = new StationObserver();
  private current: { station: Station; loaded: LoadedConfig; core: CoreConfig; tokens: TokenStore; startedAt: number } | null;
  /** Monotonic time the station swap in progress began (current is null meanwhile). */
  private swapStartedAt = 0;
  private service = false;
  private action: string | null = null;
  private stopped = false;

  /**
   * `loaded` is what `station` was started from. A bad `technician-tokens` credential does not stop
   * the station: it is logged and only the config's tokens count (fewer tokens, never more).
   */
  constructor(
    station: Station,
    loaded: LoadedConfig,
    private readonly opts: HostOptions,
  ) {
    let tokens: TokenStore;
    try {
      tokens = new TokenStore(loadTokenEntries(loaded.config.debug.tokens, opts.env));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      opts.log.error({ source: e.source, problems: e.problems }, 'technician tokens credential invalid; only the config file\'s tokens are accepted');
      tokens = new TokenStore(loaded.config.debug.tokens);
    }
    this.current = { station, loaded, core: coreConfigOf(station.config), tokens, startedAt: performance.now() };
    this.startConfig = loaded.config;
    this.observer.attach(station.runtime);
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

  /** The running station; 503 while a reload swaps it. */
  get station(): Station {
    return this.running().station;
  }
  get core(): CoreConfig {
    return this.running().core;
  }
  get config(): StationConfig {
    return this.running().loaded.config;
  }
  get tokens(): TokenStore {
    return this.running().tokens;
  }

  private running(): NonNullable<StationHost['current']> {
    if (this.current === null) throw new HttpError(503, 'reloading', 'the station is restarting with a new config; try again in a moment');
    return this.current;
  }

  /** Turn service mode on or off (the core reports /state DOWN "service" while on). */
  setService(on: boolean): void {
    this.service = on;
    this.station.runtime.dispatch({ type: 'fault', key: SERVICE_FAULT, message: on ? 'service' : null });
  }

  /**
   * Run `fn` holding the action slot; 409 while another long action (self-test, reload) runs.
   * The slot is free again when `fn` settles.
   */
  async exclusive<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.action !== null) throw new HttpError(409, 'busy', `${this.action} in progress`);
    this.action = what;
    try {
      return await fn();
    } finally {
      this.action = null;
    }
  }

  /** Whether a reload is between stopping the old station and installing the new one. */
  get swapping(): boolean {
    return this.current === null;
  }

  /** The long action running now (for refusing short ones meanwhile), or null. */
  get busyWith(): string | null {
    return this.action;
  }

  /**
   * Re-read and validate the config file; on success restart the station with it. A bad file
   * (or a bad token credential) answers its problems and leaves the running station as it is.
   * 409 while a reader uses the station.
   */
  reload(): Promise<ReloadResult> {
    const file = this.opts.configFile;
    if (file === null) return Promise.reject(new HttpError(409, 'no_config_file', 'this station was not started from a config file'));
    return this.exclusive('reload', async () => {
      let loaded: LoadedConfig;
      let tokens: TokenStore;
      try {
        loaded = loadConfigFile(file, this.opts.env);
        tokens = new TokenStore(loadTokenEntries(loaded.config.debug.tokens, this.opts.env));
      } catch (e) {
        if (e instanceof ConfigError) return { ok: false, source: e.source, problems: e.problems };
        throw e;
      }
      const old = this.running();
      const busy = readerActivity(old.core, old.station.runtime.snapshot());
      if (busy !== null) throw new HttpError(409, 'busy', `not now: ${busy}`);

      this.current = null;
      this.swapStartedAt = performance.now();
      // Stop first: locks OFF and hardware released before the new config requests it again.
      await old.station.stop();
      let station: Station;
      try {
        station = await this.opts.start(loaded);
      } catch (e) {
        this.opts.log.error({ error: errorMessage(e) }, 'the new config did not start; starting the previous one again');
        try {
          this.install(await this.opts.start(old.loaded), old.loaded, old.tokens);
        } catch (e2) {
          this.opts.log.fatal({ error: errorMessage(e2) }, 'the previous config did not start again either');
          this.opts.onFatal(e2);
        }
        throw new HttpError(500, 'start_failed', `the new config did not start: ${errorMessage(e)}; the previous config runs again`);
      }
      this.install(station, loaded, tokens);
      this.opts.log.level = loaded.config.log.level;
      // Keys read once at process start keep the values the process started with, however many
      // reloads came between: compared with those, not with the previous reload's.
      const restartNeeded = changedKeys(configApplyClasses(), this.startConfig, loaded.config).process;
      return { ok: true, restartNeeded };
    });
  }

  private install(station: Station, loaded: LoadedConfig, tokens: TokenStore): void {
    // Stopped while the new station was starting: it must not run on unattended.
    if (this.stopped) void station.stop();
    this.current = { station, loaded, core: coreConfigOf(station.config), tokens, startedAt: performance.now() };
    this.observer.attach(station.runtime);
    if (this.service) this.setService(true);
  }

  /** Stop the station (locks OFF). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.observer.close();
    await this.current?.station.stop();
  }
}
