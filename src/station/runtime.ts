/**
 * The imperative shell around the pure core: one runtime = one station. It holds the core's state,
 * feeds it inputs (from the devices: inputs.ts; from the protocol's answers: outbound.ts; from
 * timers and effects: effects.ts) and hands each transition's effects to effects.ts; it starts the
 * station (every lock OFF, doors and tamper read, the PIN throttle and the journal read back),
 * drains and stops it, and tells observers what happened.
 *
 * It writes the journal (a port: src/journal/) before each effect it records — the event before
 * the request leaves, each attempt, the outcome, the box action and each pulse before the lock is
 * energized, the doors of each answered /state — and hands what the journal read back to the core
 * with the `start` input. It never touches a file itself.
 */
import type { Config } from '../config/schema.js';
import type { DoorState, Unsubscribe } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import { MemoryJournal } from '../journal/memory.js';
import { previousRun, type Journal, type JournalHealth } from '../journal/types.js';
import { watchFirstWrite, type FirstWriteSender } from '../protocol/first-write.js';
import { MemoryPinThrottleStore } from '../storage/pin-throttle-store.js';
import type { PinThrottleRecord, PinThrottleStore } from '../storage/types.js';
import { initialState, transition } from './core.js';
import type { CoreConfig, CoreState, Input } from './core-types.js';
import { Effects } from './effects.js';
import { headphonesNow, watchDeviceHealth, watchSpeechOutput, watchUsbWatch, wireInputs } from './inputs.js';
import { Outbound } from './outbound.js';
import { waitUntil } from '../time.js';
import type { DrainResult, EventRecord, PowerReading, RuntimeEvent, RuntimeOptions } from './runtime-types.js';

export type { DrainResult, EventRecord, FailureKind, OutcomeKind, PowerReading, RuntimeEvent, RuntimeOptions } from './runtime-types.js';
export { PIN_THROTTLE_FAULT } from './effects.js';

/**
 * The core's config; `speechOutput`: whether the hardware has an audio output (without one the
 * station never speaks). Called once per station, by its runtime: everything else reads
 * `runtime.core`, so no second copy can differ from the one the core runs on.
 */
function coreConfigOf(config: Config, speechOutput: boolean): CoreConfig {
  const { mode, required, holdKey, volume } = config.speech;
  return {
    boxes: config.station.boxes,
    timing: config.timing,
    pin: config.pin,
    messages: config.messages,
    rfid: config.rfid,
    speech: { mode: speechOutput ? mode : 'off', required, holdKey, volume },
    security: config.security,
  };
}

export class StationRuntime {
  private state: CoreState = initialState({});
  /** The config the core runs on (the one copy: the supervisor, the port and metrics read this). */
  readonly core: CoreConfig;
  private readonly observers = new Set<(e: RuntimeEvent) => void>();
  private readonly transitions = new Set<(state: CoreState) => void>();
  private readonly unsubscribe: Unsubscribe[] = [];
  private readonly abort = new AbortController();
  /** Aborted when draining begins: the event in flight is not resent. */
  private readonly noResend = new AbortController();
  private readonly now: () => number;
  private readonly throttleStore: PinThrottleStore;
  private readonly outbound: Outbound;
  private readonly effects: Effects;
  private running = false;
  readonly journal: Journal;
  private drained: (() => void) | null = null;
  /** The protocol client, telling when the first report is on the wire. */
  private readonly client: FirstWriteSender;
  private drainPromise: Promise<DrainResult> | null = null;

  constructor(private readonly opts: RuntimeOptions) {
    const { config, hardware, log } = opts;
    this.core = coreConfigOf(config, (hardware.speech ?? null) !== null);
    this.client = watchFirstWrite(opts.client);
    this.now = opts.now ?? (() => performance.now());
    this.journal = opts.journal ?? new MemoryJournal();
    this.throttleStore = opts.pinThrottleStore ?? new MemoryPinThrottleStore();
    const link = {
      running: () => this.running,
      dispatch: (input: Input) => this.dispatch(input),
      emit: (e: RuntimeEvent) => this.emit(e),
    };
    this.outbound = new Outbound({
      ...link,
      config,
      core: this.core,
      hardware,
      client: this.client,
      journal: this.journal,
      log,
      historySize: opts.historySize ?? 100,
      abort: this.abort.signal,
      noResend: this.noResend.signal,
      now: this.now,
      saved: () => this.effects.saving,
    });
    this.effects = new Effects({
      ...link,
      config,
      core: this.core,
      hardware,
      log,
      journal: this.journal,
      throttleStore: this.throttleStore,
      outbound: this.outbound,
      state: () => this.state,
      drained: () => this.drained?.(),
    });
  }

  /**
   * Drive locks OFF, read the doors and the tamper switch, load the PIN throttle, subscribe to
   * devices and send the first /state.
   */
  async start(): Promise<void> {
    const { hardware: hw, log } = this.opts;
    await hw.locks.allOff();
    const doors: Record<string, DoorState> = {};
    for (const b of this.core.boxes) doors[b.id] = await hw.doors.read(b.number);
    const tamperOpen = hw.tamper ? await hw.tamper.read() : false;
    const loaded = await this.throttleStore.load();
    if (loaded.kind === 'damaged') log.error({ reason: loaded.reason }, 'PIN throttle state damaged');
    const pinThrottle: PinThrottleRecord | 'damaged' | null = loaded.kind === 'ok' ? loaded.record : loaded.kind === 'damaged' ? 'damaged' : null;
    this.state = initialState(doors);
    this.running = true;
    const { journal } = this;
    const previous = previousRun(journal.readBack);
    if (journal.readBack.problem !== null)
      log.error({ journal: journal.location, problem: journal.readBack.problem }, 'journal damaged or unreadable; set aside, starting anyway');
    journal.record({ t: 'start', at: new Date().toISOString() });
    this.unsubscribe.push(
      journal.onProblem((problem) => {
        log.error({ journal: journal.location, problem }, 'journal problem');
        this.dispatch({ type: 'problem', message: `journal: ${problem}` });
      }),
    );
    const sink = {
      dispatch: (input: Input) => this.dispatch(input),
      door: (boxId: string, number: number, state: DoorState) =>
        this.emit({ type: 'box', boxId, number, state, outcome: this.state.doorOutcomes[boxId] ?? null }),
      now: this.now,
    };
    this.unsubscribe.push(...wireInputs(hw, this.core, sink, log), ...watchDeviceHealth(hw, sink));
    this.dispatch({ type: 'start', previous, pinThrottle, tamperOpen, headphones: headphonesNow(hw) });
    const unknownUsb = hw.usb?.unknown().length ?? 0;
    if (unknownUsb > 0) this.dispatch({ type: 'unknown-usb', present: unknownUsb });
    this.unsubscribe.push(...watchSpeechOutput(hw, sink), ...watchUsbWatch(hw, sink));
  }

  /** Feed one input to the core and carry out its effects. */
  dispatch(input: Input): void {
    if (!this.running) return;
    const before = this.state;
    const { state, effects } = transition(this.core, this.state, input);
    this.state = state;
    if (state.mode.kind !== before.mode.kind) this.emit({ type: 'mode', mode: state.mode.kind });
    if (state.mode !== before.mode) this.opts.hardware.cancelButton?.setAvailable?.(state.mode.kind === 'closing' && state.mode.cancellable);
    if (state.alarms !== before.alarms) {
      for (const a of before.alarms) if (!state.alarms.includes(a)) this.emit({ type: 'alarm', alarm: a, active: false });
      for (const a of state.alarms) if (!before.alarms.includes(a)) this.emit({ type: 'alarm', alarm: a, active: true });
    }
    if (state !== before) for (const l of this.transitions) l(state);
    this.effects.run(effects);
  }

  // --- observation ------------------------------------------------------------------------
  onEvent(listener: (e: RuntimeEvent) => void): Unsubscribe {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  /**
   * Called with the new state after each transition that changed it (before its effects run): how
   * the supervisor waits for the station to become free without polling. A listener must not throw.
   */
  onTransition(listener: (state: CoreState) => void): Unsubscribe {
    this.transitions.add(listener);
    return () => this.transitions.delete(listener);
  }

  private emit(e: RuntimeEvent): void {
    for (const o of this.observers) {
      try {
        o(e);
      } catch (err) {
        this.opts.log.error({ error: errorMessage(err) }, 'runtime observer failed');
      }
    }
  }

  /** The core state (read-only snapshot). */
  snapshot(): CoreState {
    return this.state;
  }

  /** Finished protocol events, oldest first. */
  events(): readonly EventRecord[] {
    return this.outbound.history;
  }

  /** Monotonic time of the last finished /state (answered or not); null before the first. */
  lastStateOutcome(): number | null {
    return this.outbound.lastStateOutcomeAt;
  }

  /** The measurements the last /state carried (null: not measured); null before the first /state. */
  lastPower(): PowerReading | null {
    return this.outbound.lastPowerRead;
  }

  /** The journal's health, for the technician status. */
  journalHealth(): JournalHealth {
    return this.journal.health();
  }

  /**
   * Graceful stop, first half: the core drains (new input refused with the "restarting" text, the
   * event in flight answered but not resent, an answered box-open carried out through its pulse and
   * the /state that reports the doors). Resolves 'drained' once that is done, or 'limit' after
   * `limitMs`. Call stop() afterwards either way (it drives every lock OFF).
   */
  drain(limitMs: number): Promise<DrainResult> {
    if (this.drainPromise) return this.drainPromise;
    let done = !this.running;
    let wake = (): void => undefined;
    this.drained = () => {
      done = true;
      wake();
    };
    if (!done) {
      this.noResend.abort();
      // The core may drain at once (nothing in flight): `done` is set before the wait first asks.
      this.dispatch({ type: 'drain' });
    }
    this.drainPromise = waitUntil({
      check: () => (done ? true : undefined),
      wake: (w) => {
        wake = w;
        return () => void (wake = () => undefined);
      },
      limitMs,
    }).then((w) => (w.kind === 'met' ? 'drained' : 'limit'));
    return this.drainPromise;
  }

  /**
   * Resolves once the first event since start() (the start's /state) is written to the network, or
   * its first attempt ended without that (or the station stopped). What loads after start (the
   * technician port) waits for it, so that its loading does not delay the station's first report.
   */
  firstReportWritten(): Promise<void> {
    return this.client.firstWritten;
  }

  /** Stop: timers off, in-flight event aborted, pulses finished, every lock OFF. */
  async stop(): Promise<void> {
    this.client.settle();
    if (!this.running) return;
    this.running = false;
    this.drained?.();
    this.effects.clearTimers();
    for (const u of this.unsubscribe) u();
    // OFF first, then let a pulse in progress end (it drives OFF again), then OFF once more.
    await this.opts.hardware.locks.allOff();
    this.abort.abort();
    await this.effects.settle();
    await this.opts.hardware.locks.allOff();
    await this.journal.flush();
  }
}
