/**
 * The simulated audio output and help controls: what a test, the demo or a person at the keyboard
 * hears and presses. The output records every announcement and tone (the demo prints them); an
 * announcement lasts `msPerChar` per character of its text (0: over at once), a tone its steps'
 * length, so that a new one cutting the old can be seen.
 */
import { Listeners } from '../device-base.js';
import type { AssistControls, AssistRequest, SpeechOutput, ToneStep, Unsubscribe } from '../types.js';
import { SimDevice } from './base.js';

export interface Utterance {
  readonly kind: 'say' | 'tone';
  /** The text said, or the tone's steps as "880Hz/70ms 0Hz/40ms". */
  readonly text: string;
  readonly voice: string | null;
  readonly volume: number;
  /** Cut short by the next one (or stop()) before it ended. */
  cut: boolean;
}

export class SimSpeech extends SimDevice implements SpeechOutput {
  readonly heard: Utterance[] = [];
  private readonly starts = new Listeners<[Utterance]>();
  private playing: { timer: NodeJS.Timeout; utterance: Utterance; done: () => void } | null = null;

  constructor(private readonly msPerChar = 0) {
    super('simulated audio output');
  }

  /** Hear each announcement and tone as it starts. */
  onUtterance(listener: (u: Utterance) => void): Unsubscribe {
    return this.starts.add(listener);
  }

  /** Whether something plays right now. */
  get speaking(): boolean {
    return this.playing !== null;
  }

  say(text: string, voice: string, volume: number): Promise<void> {
    return this.play({ kind: 'say', text, voice, volume, cut: false }, text.length * this.msPerChar);
  }

  tone(steps: readonly ToneStep[], volume: number): Promise<void> {
    const text = steps.map((s) => `${s.hz}Hz/${s.ms}ms`).join(' ');
    return this.play({ kind: 'tone', text, voice: null, volume, cut: false }, this.msPerChar === 0 ? 0 : steps.reduce((n, s) => n + s.ms, 0));
  }

  stop(): Promise<void> {
    this.end(true);
    return Promise.resolve();
  }

  private play(u: Utterance, ms: number): Promise<void> {
    this.end(true);
    // A missing output plays nothing (and never throws): the device's health says so.
    if (this.closed || !this.health().ok) return Promise.resolve();
    this.heard.push(u);
    this.starts.emit(u);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.playing = { timer: setTimeout(() => this.end(false), ms), utterance: u, done: resolve };
    });
  }

  private end(cut: boolean): void {
    const p = this.playing;
    if (p === null) return;
    this.playing = null;
    clearTimeout(p.timer);
    if (cut) p.utterance.cut = true;
    p.done();
  }

  override close(): Promise<void> {
    this.end(true);
    this.starts.clear();
    return super.close();
  }
}

/** Simulated help controls: the speech, volume and more-time buttons and a headphone jack. */
export class SimAssist extends SimDevice implements AssistControls {
  private readonly requests = new Listeners<[AssistRequest]>();
  private readonly jack = new Listeners<[boolean]>();
  private plugged = false;
  /** What the station last offered (a warning showing) and how often the patron's visit ended. */
  moreTimeOffered = false;
  sessionsEnded = 0;

  constructor() {
    super('simulated help controls');
  }
  onRequest(listener: (r: AssistRequest) => void): Unsubscribe {
    return this.requests.add(listener);
  }
  headphones(): boolean | null {
    return this.plugged;
  }
  onHeadphones(listener: (plugged: boolean) => void): Unsubscribe {
    return this.jack.add(listener);
  }
  setMoreTimeOffered(offered: boolean): void {
    this.moreTimeOffered = offered;
  }
  sessionEnded(): void {
    this.sessionsEnded += 1;
  }
  press(request: AssistRequest): void {
    this.requests.emit(request);
  }
  plugHeadphones(plugged: boolean): void {
    if (this.plugged === plugged) return;
    this.plugged = plugged;
    this.jack.emit(plugged);
  }
  override close(): Promise<void> {
    this.requests.clear();
    this.jack.clear();
    return super.close();
  }
}
