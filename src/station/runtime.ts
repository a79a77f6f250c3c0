/**
 * The imperative shell around the pure core: owns the timers, carries out effects (protocol
 * events, lock pulses, display lines, logs) and turns device callbacks and protocol outcomes
 * into core inputs. One runtime = one station.
 *
 * It writes the journal (a port: src/journal/) before each effect it records — the event before
 * the request leaves, each attempt, the outcome, the box action and each pulse before the lock is
 * energized, the doors of each answered /state — and hands what the journal read back to the core
 * with the `start` input. It never touches a file itself.
 */
import { randomUUID } from 'node:crypto';
import type { StationConfig } from '../config/schema.js';
import type { Device, DoorState, SecurityWrite, Unsubscribe } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import { MemoryJournal } from '../journal/memory.js';
import { maskIdentifier, previousRun, type Journal, type JournalHealth } from '../journal/types.js';
import { NOT_RESENT_STOPPING, type SendOutcome } from '../protocol/client.js';
import { watchFirstWrite, type FirstWriteSender } from '../protocol/first-write.js';
import type { Endpoint, RequestBodies } from '../protocol/types.js';
import { MemoryPinThrottleStore } from '../storage/pin-throttle-store.js';
import type { PinThrottleRecord, PinThrottleStore } from '../storage/types.js';
import { BuzzerPlayer } from './buzzer-player.js';
import { SpeechPlayer, type SpeechItem } from './speech-player.js';
import { boxNumber, initialState, transition } from './core.js';
import type { CoreConfig, CoreState, Effect, Input, OutboundRequest, TimerName, ToneName } from './core-types.js';
import { describeAnswer, outcomeKindOf } from './event-outcome.js';
import type { DrainResult, EventRecord, PowerReading, RuntimeEvent, RuntimeOptions } from './runtime-types.js';

export type { DrainResult, EventRecord, OutcomeKind, PowerReading, RuntimeEvent, RuntimeOptions } from './runtime-types.js';

/** The fault set while the PIN throttle cannot be saved (st DOWN: a restart would forget failures). */
export const PIN_THROTTLE_FAULT = 'storage:pin-throttle';

/** The core's config; `speechOutput`: whether the hardware has an audio output (without one the station never speaks). */
export function coreConfigOf(config: StationConfig, speechOutput = true): CoreConfig {
  const { mode, required, holdKey, volume } = config.speech;
  return {
    boxes: config.station.boxes,
    timing: config.timing,
    pin: config.pin,
    messages: config.messages,
    rfid: config.rfid,
    speech: { mode: speechOutput ? mode : 'off', required, holdKey, volume },
  };
}

export class StationRuntime {
  private state: CoreState = initialState({});
  private readonly core: CoreConfig;
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private readonly observers = new Set<(e: RuntimeEvent) => void>();
  private readonly unsubscribe: Unsubscribe[] = [];
  private readonly abort = new AbortController();
  private readonly history: EventRecord[] = [];
  private readonly now: () => number;
  private pulses: Promise<void> = Promise.resolve();
  /** Pulses queued or running (0: the next one may start at once). */
  private pulsesQueued = 0;
  private sending: Promise<void> = Promise.resolve();
  /** PIN throttle saves, in order; a /pin-enter waits for them (the count is on disk before a guess goes out). */
  private saving: Promise<void> = Promise.resolve();
  private readonly throttleStore: PinThrottleStore;
  private readonly player: BuzzerPlayer;
  private readonly speech: SpeechPlayer;
  private running = false;
  private lastStateOutcomeAt: number | null = null;
  private lastPowerRead: PowerReading | null = null;
  readonly journal: Journal;
  /** The event whose answer is being dispatched (its id goes into the journal's action record). */
  private answering: string | null = null;
  /** The deposit's event a security write belongs to (the journal names a final failure under it). */
  private securityEventId: string | null = null;
  /** Aborted when draining begins: the event in flight is not resent. */
  private readonly noResend = new AbortController();
  private drained: (() => void) | null = null;
  /** The protocol client, telling when the first report is on the wire. */
  private readonly client: FirstWriteSender;
  private drainPromise: Promise<DrainResult> | null = null;

  constructor(private readonly opts: RuntimeOptions) {
    this.core = coreConfigOf(opts.config, (opts.hardware.speech ?? null) !== null);
    this.client = watchFirstWrite(opts.client);
    this.now = opts.now ?? (() => performance.now());
    this.journal = opts.journal ?? new MemoryJournal();
    this.throttleStore = opts.pinThrottleStore ?? new MemoryPinThrottleStore();
    this.player = new BuzzerPlayer(opts.hardware.buzzer ?? null, opts.config.buzzer.patterns, (e) =>
      opts.log.warn({ error: errorMessage(e) }, 'buzzer failed'),
    );
    const { voices, tones } = opts.config.speech;
    const steps = (name: ToneName) => tones[name].map(([hz, ms]) => ({ hz, ms }));
    this.speech = new SpeechPlayer(opts.hardware.speech ?? null, {
      voice: voices[opts.config.messages.locale],
      tones: { key: steps('key'), erase: steps('erase'), clear: steps('clear'), enter: steps('enter'), warning: steps('warning'), volume: steps('volume') },
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

    const idOf = (n: number): string | undefined => this.core.boxes.find((b) => b.number === n)?.id;
    // Any input wakes a display that dims when idle, whether or not the screen changes.
    const wake = (): void => hw.display.wake?.();
    this.unsubscribe.push(
      hw.doors.onChange((n, st) => {
        wake();
        const boxId = idOf(n);
        if (boxId === undefined) return log.warn({ box: n }, 'door change of a box not in the config');
        this.dispatch({ type: 'door', boxId, state: st });
        this.emit({ type: 'box', boxId, number: n, state: st, outcome: this.state.doorOutcomes[boxId] ?? null });
      }),
    );
    if (hw.tamper) this.unsubscribe.push(hw.tamper.onChange((open) => this.dispatch({ type: 'tamper', open })));
    for (const sc of hw.scanners) {
      this.unsubscribe.push(
        sc.onScan((value) => {
          wake();
          this.dispatch({ type: 'scan', identifierType: sc.identifierType, value, at: this.now() });
        }),
      );
    }
    for (const reader of hw.rfidReaders ?? []) {
      this.unsubscribe.push(
        reader.onField((tags) => {
          wake();
          this.dispatch({ type: 'rfid-field', reader: reader.name, send: reader.send, tags, at: this.now() });
        }),
      );
    }
    if (hw.keypad) {
      this.unsubscribe.push(
        hw.keypad.onKey((key) => {
          wake();
          this.dispatch({ type: 'key', key });
        }),
      );
      const held = hw.keypad.onHold?.((key) => this.dispatch({ type: 'key-held', key }));
      if (held) this.unsubscribe.push(held);
    }
    const assist = hw.assist ?? [];
    for (const control of assist) {
      this.unsubscribe.push(
        control.onRequest((request) => {
          wake();
          this.dispatch({ type: 'assist', request });
        }),
      );
      const jack = control.onHeadphones?.((plugged) => this.dispatch({ type: 'headphones', plugged }));
      if (jack) this.unsubscribe.push(jack);
    }
    const headphones = assist.some((c) => c.headphones?.() === true);
    if (hw.cancelButton)
      this.unsubscribe.push(
        hw.cancelButton.onPress(() => {
          wake();
          this.dispatch({ type: 'cancel-pressed' });
        }),
      );
    // The audio output's health is the core's to judge (DOWN only when speech is required).
    const output = hw.speech ?? null;
    for (const d of hw.devices()) if (d !== output) this.watchHealth(d);
    this.dispatch({ type: 'start', previous, pinThrottle, tamperOpen, headphones });
    if (output !== null) this.watchSpeechOutput(output);
  }

  private watchSpeechOutput(output: Device): void {
    const report = (): void => {
      const h = output.health();
      this.dispatch({ type: 'speech-output', problem: h.ok ? null : (h.detail ?? `${output.name} not working`) });
    };
    this.unsubscribe.push(output.onHealthChange(report));
    if (!output.health().ok) report();
  }

  private watchHealth(device: Device): void {
    const report = (): void => {
      const h = device.health();
      this.dispatch({ type: 'fault', key: `device:${device.name}`, message: h.ok ? null : (h.detail ?? `${device.name} not working`) });
    };
    this.unsubscribe.push(device.onHealthChange(report));
    if (!device.health().ok) report();
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
    const speech: SpeechItem[] = [];
    for (const e of effects) {
      if (e.type === 'speak' || e.type === 'tone') speech.push(e);
      else this.execute(e);
    }
    // One transition's tones and speech are one announcement; it cuts the one playing.
    this.speech.play(speech);
  }

  private execute(effect: Effect): void {
    const { log } = this.opts;
    switch (effect.type) {
      case 'send':
        this.sending = this.sendEvent(effect.request);
        return;
      case 'journal-action':
        this.journal.record({ t: 'action', by: effect.by, eventId: effect.by === 'technician' ? null : this.answering, boxes: effect.boxIds });
        return;
      case 'pulse':
        this.pulseBoxes(effect.boxIds);
        return;
      case 'drained':
        // The pulses of an answered box-open run to their end before the locks go OFF.
        void this.pulses.then(() => this.drained?.());
        return;
      case 'display':
        this.emit({ type: 'display', lines: effect.lines });
        this.opts.hardware.display.show(effect.lines).catch((e: unknown) => log.error({ error: errorMessage(e) }, 'display failed'));
        return;
      case 'start-timer':
        this.startTimer(effect.timer, effect.ms);
        return;
      case 'stop-timer':
        this.stopTimer(effect.timer);
        return;
      case 'sound':
        this.player.play(effect.sound);
        return;
      case 'speak':
      case 'tone':
        this.speech.play([effect]);
        return;
      case 'hush':
        this.speech.hush();
        return;
      case 'more-time-offered':
        for (const c of this.opts.hardware.assist ?? []) c.setMoreTimeOffered?.(effect.offered);
        return;
      case 'session-end':
        for (const c of this.opts.hardware.assist ?? []) c.sessionEnded?.();
        return;
      case 'save-pin-throttle':
        this.savePinThrottle(effect.record);
        return;
      case 'write-security':
        this.writeSecurity(effect.reader, effect.uids, effect.write);
        return;
      case 'journal-security-failure': {
        const f = effect.failure;
        const event = this.securityEventId === null ? '' : ` after event ${this.securityEventId}`;
        this.journal.record({
          t: 'note',
          at: new Date().toISOString(),
          note: `RFID security bit not cleared on item ${maskIdentifier(f.itemId)}${event} (${f.uids.join(', ')}): ${f.reason}`,
        });
        this.emit({ type: 'rfid-security-failed', reader: f.reader });
        return;
      }
      case 'log':
        log[effect.level](effect.data ?? {}, effect.msg);
        return;
    }
  }

  /** Carry out a security write on the named reader; its verified results come back as an input. */
  private writeSecurity(readerName: string, uids: readonly string[], write: SecurityWrite): void {
    if (this.answering !== null) this.securityEventId = this.answering;
    const reader = (this.opts.hardware.rfidReaders ?? []).find((r) => r.name === readerName);
    if (reader === undefined) {
      // Not from inside this dispatch: the effects after this one run first.
      queueMicrotask(() =>
        this.dispatch({
          type: 'security-result',
          reader: readerName,
          results: uids.map((uid) => ({ uid, ok: false, reason: `no reader named ${readerName}` })),
        }),
      );
      return;
    }
    reader.writeSecurity(uids, write).then(
      (results) => this.dispatch({ type: 'security-result', reader: readerName, results }),
      (e: unknown) => this.dispatch({ type: 'security-result', reader: readerName, results: uids.map((uid) => ({ uid, ok: false, reason: errorMessage(e) })) }),
    );
  }

  private savePinThrottle(record: PinThrottleRecord): void {
    const { log } = this.opts;
    this.saving = this.saving.then(async () => {
      try {
        await this.throttleStore.save(record);
        if (this.state.faults[PIN_THROTTLE_FAULT] !== undefined) this.dispatch({ type: 'fault', key: PIN_THROTTLE_FAULT, message: null });
      } catch (e) {
        log.error({ where: this.throttleStore.where, error: errorMessage(e) }, 'cannot save the PIN throttle');
        this.dispatch({ type: 'fault', key: PIN_THROTTLE_FAULT, message: `cannot save the PIN throttle: ${errorMessage(e)}` });
      }
    });
  }

  private startTimer(timer: TimerName, ms: number): void {
    this.stopTimer(timer);
    const t = setTimeout(() => {
      this.timers.delete(timer);
      this.dispatch({ type: 'timer', timer });
    }, ms);
    this.timers.set(timer, t);
  }

  private stopTimer(timer: TimerName): void {
    const t = this.timers.get(timer);
    if (t) clearTimeout(t);
    this.timers.delete(timer);
  }

  private async body<E extends Endpoint>(request: OutboundRequest & { endpoint: E }): Promise<RequestBodies[E]>;
  private async body(request: OutboundRequest): Promise<RequestBodies[Endpoint]> {
    const station = this.opts.config.station.id;
    const event = randomUUID();
    switch (request.endpoint) {
      case 'state': {
        const { power } = this.opts.hardware;
        const [inputVoltage, internetSignalStrength] = await Promise.all([
          power.inputVoltage().catch(() => null),
          power.internetSignalStrength().catch(() => null),
        ]);
        this.lastPowerRead = { inputVoltage, internetSignalStrength };
        return {
          station,
          st: request.st,
          errorMessage: request.errorMessage,
          ...(inputVoltage === null ? {} : { inputVoltage }),
          ...(internetSignalStrength === null ? {} : { internetSignalStrength: Math.round(internetSignalStrength) }),
          boxes: request.boxes,
          event,
        };
      }
      case 'item-identify':
        return { station, identifierType: request.identifierType, identifierValue: request.identifierValue, event };
      case 'pin-enter':
        return { station, pin: request.pin, event };
      case 'cancel':
        return { station, event };
    }
  }

  private async sendEvent(request: OutboundRequest): Promise<void> {
    const startedAt = this.now();
    const { journal } = this;
    let outcome: SendOutcome;
    try {
      // A guess goes out only once the failures before it are on disk.
      if (request.endpoint === 'pin-enter') await this.saving;
      const body = await this.body(request);
      const eventId = body.event;
      // A librarian's or reader's event is journaled before it leaves; a /state needs no restart truth.
      const journaled = request.endpoint !== 'state';
      if (request.endpoint !== 'state') {
        const preview = request.endpoint === 'item-identify' ? maskIdentifier(request.identifierValue) : null;
        journal.record({ t: 'event', endpoint: request.endpoint, eventId, preview });
      }
      this.emit({ type: 'event-sent', endpoint: request.endpoint, eventId });
      outcome = await this.client.send(request.endpoint, body, this.abort.signal, {
        noResend: this.noResend.signal,
        ...(journaled ? { onAttempt: (attempt: number) => journal.record({ t: 'attempt', eventId, attempt }) } : {}),
      });
      const cutByStop = outcome.result.kind === 'unanswered' && (outcome.result.reason === NOT_RESENT_STOPPING || this.abort.signal.aborted);
      if (journaled && !cutByStop) {
        // Not when stopping cut it short: the restarted station then reports it as not answered.
        journal.record({ t: 'outcome', eventId, outcome: outcome.result.kind === 'answered' ? describeAnswer(this.core, outcome) : 'unanswered' });
      }
      if (request.endpoint === 'state' && outcome.result.kind === 'answered') {
        journal.record({ t: 'reported', boxes: Object.fromEntries(request.boxes.map((b) => [b.id, b.st])) });
      }
    } catch (e) {
      // A client must not throw; if one does, the event counts as unanswered rather than stalling the queue.
      this.opts.log.error({ endpoint: request.endpoint, error: errorMessage(e) }, 'protocol client failed');
      this.dispatch({ type: 'unanswered', endpoint: request.endpoint, reason: errorMessage(e) });
      return;
    }
    const record: EventRecord = {
      endpoint: outcome.endpoint,
      eventId: outcome.eventId,
      traceIds: outcome.attempts.map((a) => a.traceId),
      attempts: outcome.attempts.length,
      outcome: outcome.result.kind === 'answered' ? describeAnswer(this.core, outcome) : `unanswered: ${outcome.result.reason}`,
      outcomeKind: outcomeKindOf(outcome),
      answerMs: outcome.result.kind === 'answered' ? (outcome.attempts.at(-1)?.ms ?? null) : null,
      startedAt,
      ms: this.now() - startedAt,
    };
    this.history.push(record);
    if (this.history.length > (this.opts.historySize ?? 100)) this.history.shift();
    this.emit({ type: 'event-done', record });
    if (request.endpoint === 'state') this.lastStateOutcomeAt = this.now();
    if (!this.running) return;
    this.answering = outcome.eventId;
    try {
      this.dispatch(
        outcome.result.kind === 'answered'
          ? { type: 'answered', endpoint: request.endpoint, answer: outcome.result.answer }
          : { type: 'unanswered', endpoint: request.endpoint, reason: outcome.result.reason },
      );
    } finally {
      this.answering = null;
    }
  }

  /**
   * Pulses run one after another. When none is queued or running and the buzzer is silent, the
   * lock is energized synchronously, in the tick of the answer that commands it: no promise hop lets
   * the effects after `pulse` (display, timers, log lines) or other callbacks run first. Otherwise
   * it waits its turn on the chain (and hold() silences a beep in progress first).
   */
  private pulseBoxes(boxIds: readonly string[]): void {
    for (const boxId of boxIds) {
      const number = boxNumber(this.core, boxId);
      if (number === undefined) continue; // the core only pulses boxes of this station
      this.pulsesQueued += 1;
      if (this.pulsesQueued === 1 && this.running && this.player.holdIfSilent()) {
        this.pulses = this.energize(boxId, number);
        continue;
      }
      this.pulses = this.pulses.then(async () => {
        if (!this.running) return void (this.pulsesQueued -= 1);
        // The buzzer is silent and paused for the whole pulse (BuzzerPlayer).
        await this.player.hold();
        if (!this.running) {
          this.pulsesQueued -= 1;
          return this.player.release();
        }
        return this.energize(boxId, number);
      });
    }
  }

  /** One pulse, the buzzer held: journal, driver, observers; ends with the lock OFF and the buzzer released. */
  private async energize(boxId: string, number: number): Promise<void> {
    const { hardware, config, log } = this.opts;
    // Write, then pulse: a restart must know this lock may have been energized.
    this.journal.record({ t: 'pulse', boxId, at: new Date().toISOString() });
    // The driver first, then the log line and the observers: neither a slow log write (a full
    // journald pipe blocks a synchronous write) nor an observer stands between the answer and the lock.
    let pulse: Promise<void>;
    try {
      pulse = hardware.locks.pulse(number, config.locks.pulseMs);
    } catch (e) {
      pulse = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    this.emit({ type: 'lock', boxId, number, energized: true });
    log.info({ boxId, box: number, ms: config.locks.pulseMs }, 'pulsing lock');
    try {
      await pulse;
    } catch (e) {
      this.dispatch({ type: 'pulse-failed', boxId, message: errorMessage(e) });
    } finally {
      this.pulsesQueued -= 1;
      this.emit({ type: 'lock', boxId, number, energized: false });
      this.player.release();
    }
  }

  // --- observation ------------------------------------------------------------------------
  onEvent(listener: (e: RuntimeEvent) => void): Unsubscribe {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
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
    return this.history;
  }

  /** Monotonic time of the last finished /state (answered or not); null before the first. */
  lastStateOutcome(): number | null {
    return this.lastStateOutcomeAt;
  }

  /** The measurements the last /state carried (null: not measured); null before the first /state. */
  lastPower(): PowerReading | null {
    return this.lastPowerRead;
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
    this.drainPromise = new Promise<DrainResult>((resolve) => {
      const limit = setTimeout(() => resolve('limit'), limitMs);
      this.drained = () => {
        clearTimeout(limit);
        resolve('drained');
      };
      if (!this.running) return this.drained();
      this.noResend.abort();
      this.dispatch({ type: 'drain' });
    });
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
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const u of this.unsubscribe) u();
    // OFF first, then let a pulse in progress end (it drives OFF again), then OFF once more.
    await this.opts.hardware.locks.allOff();
    this.abort.abort();
    await Promise.allSettled([this.pulses, this.sending, this.player.stop(), this.speech.stop(), this.saving]);
    await this.opts.hardware.locks.allOff();
    await this.journal.flush();
  }
}
