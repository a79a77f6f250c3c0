/** The simulated tamper switch and buzzer: what a test, the demo or a person at the keyboard drives. */
import { MAX_BEEP_MS, type Buzzer, type TamperSwitch, type Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import { SimDevice } from './base.js';

export class SimTamper extends SimDevice implements TamperSwitch {
  private open = false;
  private readonly changes = new Listeners<[boolean]>();

  constructor() {
    super('simulated tamper switch');
  }
  read(): Promise<boolean> {
    return Promise.resolve(this.open);
  }
  onChange(listener: (open: boolean) => void): Unsubscribe {
    return this.changes.add(listener);
  }
  /** Open (true) or close (false) the cabinet. */
  set(open: boolean): void {
    if (this.open === open) return;
    this.open = open;
    this.changes.emit(open);
  }
  override close(): Promise<void> {
    this.changes.clear();
    return super.close();
  }
}

export interface BeepRecord {
  /** What was asked for. */
  readonly ms: number;
  /** Monotonic ms when it started and (once over) when it went silent. */
  readonly startedAt: number;
  endedAt: number | null;
}

/** A buzzer that sounds nothing itself: it records each beep and tells listeners (the demo rings the terminal bell). */
export class SimBuzzer extends SimDevice implements Buzzer {
  readonly beeps: BeepRecord[] = [];
  private readonly starts = new Listeners<[number]>();
  private playing: { timer: NodeJS.Timeout; record: BeepRecord; done: () => void } | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {
    super('simulated buzzer');
  }

  /** Hear each beep as it starts (its length in ms). */
  onBeep(listener: (ms: number) => void): Unsubscribe {
    return this.starts.add(listener);
  }

  /** Whether it sounds right now. */
  get sounding(): boolean {
    return this.playing !== null;
  }

  beep(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('buzzer closed'));
    this.end();
    const length = Math.max(0, Math.min(ms, MAX_BEEP_MS));
    const record: BeepRecord = { ms: length, startedAt: this.now(), endedAt: null };
    this.beeps.push(record);
    this.starts.emit(length);
    return new Promise((resolve) => {
      this.playing = { timer: setTimeout(() => this.end(), length), record, done: resolve };
    });
  }

  silence(): Promise<void> {
    this.end();
    return Promise.resolve();
  }

  private end(): void {
    const c = this.playing;
    if (c === null) return;
    this.playing = null;
    clearTimeout(c.timer);
    c.record.endedAt = this.now();
    c.done();
  }

  override close(): Promise<void> {
    this.end();
    this.starts.clear();
    return super.close();
  }
}
