/**
 * The core's effects carried out (all but `send`, which outbound.ts carries): the journal's action
 * records, lock pulses one after another, the display, the core's timers, sounds and speech, the
 * help controls, the PIN throttle's saves, and the RFID security bit. Whatever an effect learns
 * (a timer ran out, a pulse failed, a save failed, a security write's results) comes back to the
 * core as an input through `dispatch`.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { SecurityWrite, StationHardware } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import { maskIdentifier, type Journal } from '../journal/types.js';
import type { PinThrottleRecord, PinThrottleStore } from '../storage/types.js';
import { BuzzerPlayer } from './buzzer-player.js';
import { boxNumber } from './core.js';
import type { CoreConfig, CoreState, Effect, Input, TimerName, ToneName } from './core-types.js';
import type { Outbound } from './outbound.js';
import type { RuntimeEvent } from './runtime-types.js';
import { SpeechPlayer, type SpeechItem } from './speech-player.js';

/** The fault set while the PIN throttle cannot be saved (st DOWN: a restart would forget failures). */
export const PIN_THROTTLE_FAULT = 'storage:pin-throttle';

export interface EffectContext {
  readonly config: Config;
  readonly core: CoreConfig;
  readonly hardware: StationHardware;
  readonly log: Logger;
  readonly journal: Journal;
  readonly throttleStore: PinThrottleStore;
  readonly outbound: Outbound;
  running(): boolean;
  state(): CoreState;
  dispatch(input: Input): void;
  emit(e: RuntimeEvent): void;
  /** The core is drained and every pulse has ended (the drain's promise resolves). */
  drained(): void;
}

export class Effects {
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private pulses: Promise<void> = Promise.resolve();
  /** Pulses queued or running (0: the next one may start at once). */
  private pulsesQueued = 0;
  /** PIN throttle saves, in order; a /pin-enter waits for them (the count is on disk before a guess goes out). */
  saving: Promise<void> = Promise.resolve();
  private readonly player: BuzzerPlayer;
  private readonly speech: SpeechPlayer;
  /** The deposit's event a security write belongs to (the journal names a final failure under it). */
  private securityEventId: string | null = null;

  constructor(private readonly c: EffectContext) {
    const { config, hardware, log } = c;
    this.player = new BuzzerPlayer(hardware.buzzer ?? null, config.buzzer.patterns, (e) => log.warn({ error: errorMessage(e) }, 'buzzer failed'));
    const { voices, tones } = config.speech;
    const steps = (name: ToneName) => tones[name].map(([hz, ms]) => ({ hz, ms }));
    this.speech = new SpeechPlayer(hardware.speech ?? null, {
      voice: voices[config.messages.locale],
      tones: { key: steps('key'), erase: steps('erase'), clear: steps('clear'), enter: steps('enter'), warning: steps('warning'), volume: steps('volume') },
    });
  }

  /** Carry out one transition's effects; its tones and speech are one announcement, which cuts the one playing. */
  run(effects: readonly Effect[]): void {
    const speech: SpeechItem[] = [];
    for (const e of effects) {
      if (e.type === 'speak' || e.type === 'tone') speech.push(e);
      else this.execute(e);
    }
    this.speech.play(speech);
  }

  private execute(effect: Effect): void {
    const { c } = this;
    switch (effect.type) {
      case 'send':
        c.outbound.send(effect.request);
        return;
      case 'journal-action':
        c.journal.record({ t: 'action', by: effect.by, eventId: effect.by === 'technician' ? null : c.outbound.answering, boxes: effect.boxIds });
        return;
      case 'pulse':
        this.pulseBoxes(effect.boxIds);
        return;
      case 'drained':
        // The pulses of an answered box-open run to their end before the locks go OFF.
        void this.pulses.then(() => c.drained());
        return;
      case 'display':
        c.emit({ type: 'display', lines: effect.lines });
        c.hardware.display.show(effect.lines).catch((e: unknown) => c.log.error({ error: errorMessage(e) }, 'display failed'));
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
        for (const a of c.hardware.assist ?? []) a.setMoreTimeOffered?.(effect.offered);
        return;
      case 'session-end':
        for (const a of c.hardware.assist ?? []) a.sessionEnded?.();
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
        c.journal.record({
          t: 'note',
          at: new Date().toISOString(),
          note: `RFID security bit not cleared on item ${maskIdentifier(f.itemId)}${event} (${f.uids.map(maskIdentifier).join(', ')}): ${f.reason}`,
        });
        c.emit({ type: 'rfid-security-failed', reader: f.reader });
        return;
      }
      case 'log':
        c.log[effect.level](effect.data ?? {}, effect.msg);
        return;
    }
  }

  /** Carry out a security write on the named reader; its verified results come back as an input. */
  private writeSecurity(readerName: string, uids: readonly string[], write: SecurityWrite): void {
    const { c } = this;
    if (c.outbound.answering !== null) this.securityEventId = c.outbound.answering;
    const reader = (c.hardware.rfidReaders ?? []).find((r) => r.name === readerName);
    if (reader === undefined) {
      // Not from inside this dispatch: the effects after this one run first.
      queueMicrotask(() =>
        c.dispatch({
          type: 'security-result',
          reader: readerName,
          results: uids.map((uid) => ({ uid, ok: false, reason: `no reader named ${readerName}` })),
        }),
      );
      return;
    }
    reader.writeSecurity(uids, write).then(
      (results) => c.dispatch({ type: 'security-result', reader: readerName, results }),
      (e: unknown) => c.dispatch({ type: 'security-result', reader: readerName, results: uids.map((uid) => ({ uid, ok: false, reason: errorMessage(e) })) }),
    );
  }

  private savePinThrottle(record: PinThrottleRecord): void {
    const { c } = this;
    this.saving = this.saving.then(async () => {
      try {
        await c.throttleStore.save(record);
        if (c.state().faults[PIN_THROTTLE_FAULT] !== undefined) c.dispatch({ type: 'fault', key: PIN_THROTTLE_FAULT, message: null });
      } catch (e) {
        c.log.error({ where: c.throttleStore.where, error: errorMessage(e) }, 'cannot save the PIN throttle');
        c.dispatch({ type: 'fault', key: PIN_THROTTLE_FAULT, message: `cannot save the PIN throttle: ${errorMessage(e)}` });
      }
    });
  }

  private startTimer(timer: TimerName, ms: number): void {
    this.stopTimer(timer);
    const t = setTimeout(() => {
      this.timers.delete(timer);
      this.c.dispatch({ type: 'timer', timer });
    }, ms);
    this.timers.set(timer, t);
  }

  private stopTimer(timer: TimerName): void {
    const t = this.timers.get(timer);
    if (t) clearTimeout(t);
    this.timers.delete(timer);
  }

  /**
   * Pulses run one after another. When none is queued or running and the buzzer is silent, the
   * lock is energized synchronously, in the tick of the answer that commands it: no promise hop lets
   * the effects after `pulse` (display, timers, log lines) or other callbacks run first. Otherwise
   * it waits its turn on the chain (and hold() silences a beep in progress first).
   */
  private pulseBoxes(boxIds: readonly string[]): void {
    const { c } = this;
    for (const boxId of boxIds) {
      const number = boxNumber(c.core, boxId);
      if (number === undefined) continue; // the core only pulses boxes of this station
      this.pulsesQueued += 1;
      if (this.pulsesQueued === 1 && c.running() && this.player.holdIfSilent()) {
        this.pulses = this.energize(boxId, number);
        continue;
      }
      this.pulses = this.pulses.then(async () => {
        if (!c.running()) return void (this.pulsesQueued -= 1);
        // The buzzer is silent and paused for the whole pulse (BuzzerPlayer).
        await this.player.hold();
        if (!c.running()) {
          this.pulsesQueued -= 1;
          return this.player.release();
        }
        return this.energize(boxId, number);
      });
    }
  }

  /** One pulse, the buzzer held: journal, driver, observers; ends with the lock OFF and the buzzer released. */
  private async energize(boxId: string, number: number): Promise<void> {
    const { hardware, config, log, journal } = this.c;
    // Write, then pulse: a restart must know this lock may have been energized.
    journal.record({ t: 'pulse', boxId, at: new Date().toISOString() });
    // The driver first, then the log line and the observers: neither a slow log write (a full
    // journald pipe blocks a synchronous write) nor an observer stands between the answer and the lock.
    let pulse: Promise<void>;
    try {
      pulse = hardware.locks.pulse(number, config.locks.pulseMs);
    } catch (e) {
      pulse = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    this.c.emit({ type: 'lock', boxId, number, energized: true });
    log.info({ boxId, box: number, ms: config.locks.pulseMs }, 'pulsing lock');
    try {
      await pulse;
    } catch (e) {
      this.c.dispatch({ type: 'pulse-failed', boxId, message: errorMessage(e) });
    } finally {
      this.pulsesQueued -= 1;
      this.c.emit({ type: 'lock', boxId, number, energized: false });
      this.player.release();
    }
  }

  /** The station stops: no timer fires any more. */
  clearTimers(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves once every pulse, the event in flight, the buzzer, speech and the PIN throttle's saves have ended. */
  async settle(): Promise<void> {
    await Promise.allSettled([this.pulses, this.c.outbound.sending, this.player.stop(), this.speech.stop(), this.saving]);
  }
}
