/**
 * Carries out the core's speech effects (core/assist.ts decides what is said) on the audio output.
 * The `speak` and `tone` effects of one transition are one announcement, played in order (a key's
 * tone, then the screen it led to); a new announcement cuts the one playing — a new screen
 * interrupts the old one, a key's tone interrupts speech — and `hush` stops it.
 *
 * The output never rejects (a failure is its health); this only orders and cuts.
 */
import type { SpeechOutput, ToneStep } from '../devices/types.js';
import type { ToneName } from './core-types.js';

export type SpeechItem =
  | { readonly type: 'speak'; readonly lines: readonly string[]; readonly volume: number }
  | { readonly type: 'tone'; readonly tone: ToneName; readonly volume: number };

export interface SpeechPlayerOptions {
  /** The espeak-ng voice of the station's locale. */
  readonly voice: string;
  readonly tones: Readonly<Record<ToneName, readonly ToneStep[]>>;
}

/**
 * Lines as one text to speak: each line a sentence of its own (a line without closing punctuation
 * gets a full stop, so the voice pauses between lines as the eye does), blank lines dropped. A word
 * written in capitals is said as a word, as people say it: espeak-ng spells out capitals ("PIN" as
 * "P, I, N"), so it gets them in lower case ("PINs", "PINů" alike).
 */
export function spokenText(lines: readonly string[]): string {
  return lines
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => (/[.!?…:;,]$/.test(l) ? l : `${l}.`))
    .join(' ')
    .replace(/\b\p{Lu}{2,}(?=\p{Ll}*\b)/gu, (caps) => caps.toLowerCase());
}

export class SpeechPlayer {
  private generation = 0;
  private playing: Promise<void> = Promise.resolve();

  constructor(
    private readonly output: SpeechOutput | null,
    private readonly o: SpeechPlayerOptions,
  ) {}

  /** Play one transition's items in order, cutting whatever plays now. */
  play(items: readonly SpeechItem[]): void {
    const output = this.output;
    if (output === null || items.length === 0) return;
    const gen = ++this.generation;
    this.playing = (async () => {
      for (const item of items) {
        if (gen !== this.generation) return;
        if (item.type === 'tone') await output.tone(this.o.tones[item.tone], item.volume);
        else await output.say(spokenText(item.lines), this.o.voice, item.volume);
      }
    })();
  }

  /** Stop speaking now. */
  hush(): void {
    if (this.output === null) return;
    this.generation += 1;
    void this.output.stop();
  }

  /** Stop for good (runtime stop): resolves once nothing plays. */
  async stop(): Promise<void> {
    this.hush();
    await this.playing;
  }
}
