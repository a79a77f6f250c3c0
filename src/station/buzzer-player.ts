/**
 * Plays the core's `sound` effects on the station's buzzer: a pattern (config `buzzer.patterns`:
 * ms on, off, on, ...) is a chain of beeps and timers, so nothing blocks the event loop.
 *
 * Never over a lock pulse: the runtime calls hold() before it energizes a lock and release() after.
 * hold() silences a beep in progress and pauses the pattern; the pattern goes on with its next step
 * after release(). A beep never starts while held (checked synchronously just before it starts).
 *
 * One pattern at a time: a sound at least as important as the one playing replaces it (the beep in
 * progress is cut); a less important one is dropped (alarm > reminder > warning > refused > accepted).
 */
import type { BuzzerPatterns } from '../config/schema.js';
import type { Buzzer } from '../devices/types.js';
import type { SoundName } from './core-types.js';
import { sleep } from '../time.js';

const RANK: Readonly<Record<SoundName, number>> = { accepted: 0, refused: 1, warning: 2, reminder: 3, alarm: 4 };

export class BuzzerPlayer {
  private generation = 0;
  private playing: SoundName | null = null;
  private loop: Promise<void> = Promise.resolve();
  private holds = 0;
  private beeping = false;
  private released: (() => void)[] = [];
  /** The pause between two steps under way; cut() ends it early. */
  private pause: AbortController | null = null;

  /** `onError` hears a beep that failed (the buzzer's own health says so too). */
  constructor(
    private readonly buzzer: Buzzer | null,
    private readonly patterns: BuzzerPatterns,
    private readonly onError: (e: unknown) => void,
  ) {}

  play(sound: SoundName): void {
    const buzzer = this.buzzer;
    if (buzzer === null) return;
    if (this.playing !== null && RANK[sound] < RANK[this.playing]) return;
    const gen = ++this.generation;
    this.playing = sound;
    this.cut();
    const steps = this.patterns[sound];
    this.loop = this.loop
      .then(() => this.run(buzzer, gen, steps))
      .catch((e: unknown) => this.onError(e))
      .finally(() => {
        if (this.generation === gen) this.playing = null;
      });
  }

  /** A lock pulse is about to start: silence now, pause the pattern. Resolves once silent. */
  async hold(): Promise<void> {
    this.holds += 1;
    if (this.beeping && this.buzzer !== null) await this.buzzer.silence();
  }

  /**
   * hold() without waiting, when nothing is beeping (the usual case): true = held, silent now, and
   * release() is owed; false = a beep is sounding, nothing changed (use hold(), which silences it).
   * Lets the runtime energize a lock in the same tick as the answer that commands it.
   */
  holdIfSilent(): boolean {
    if (this.beeping && this.buzzer !== null) return false;
    this.holds += 1;
    return true;
  }

  /** The lock pulse is over: the pattern may go on. */
  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds > 0) return;
    for (const r of this.released.splice(0)) r();
  }

  /** Stop playing for good (runtime stop). */
  async stop(): Promise<void> {
    this.generation += 1;
    this.cut();
    for (const r of this.released.splice(0)) r();
    await this.loop;
    if (this.buzzer !== null) await this.buzzer.silence().catch(() => undefined);
  }

  private async run(buzzer: Buzzer, gen: number, steps: readonly number[]): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      if (gen !== this.generation) return;
      const ms = steps[i] ?? 0;
      if (i % 2 === 1) {
        await this.sleep(ms);
        continue;
      }
      while (this.holds > 0 && gen === this.generation) await new Promise<void>((r) => this.released.push(r));
      if (gen !== this.generation) return;
      this.beeping = true;
      try {
        await buzzer.beep(ms);
      } finally {
        this.beeping = false;
      }
    }
  }

  private async sleep(ms: number): Promise<void> {
    const pause = new AbortController();
    this.pause = pause;
    await sleep(ms, pause.signal);
    if (this.pause === pause) this.pause = null;
  }

  /** End the step in progress: a beep is silenced, a pause ends now. */
  private cut(): void {
    if (this.beeping && this.buzzer !== null) this.buzzer.silence().catch((e: unknown) => this.onError(e));
    const p = this.pause;
    if (p !== null) {
      this.pause = null;
      p.abort();
    }
  }
}
