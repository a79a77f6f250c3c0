/**
 * The audio output on a board: Debian's espeak-ng speaks, ALSA's aplay plays, on the board's
 * headphone jack (or any ALSA PCM the profile names). An announcement is two processes,
 * `espeak-ng -v VOICE -s RATE -a AMPLITUDE --stdout` (the text on its stdin, never on a command line)
 * piped into `aplay -q -D DEVICE -t wav -`; a tone is a WAV made here (wav.ts) piped into aplay. A
 * new one, or stop(), kills the processes of the one playing: ALSA drops what it holds at once.
 * They get SIGTERM, and SIGKILL if still running `killGraceMs` later: a process that ignores the
 * first (a hung write to a wedged sound card) never keeps the device, or the station's stop, waiting.
 *
 * Nothing here throws at the station: a device that cannot be opened (no sound card, a USB adapter
 * unplugged, the wrong card name), or a missing espeak-ng, is this device's health, with the tool's
 * own words (`aplay: main:831: audio open error: No such file or directory`). start() probes the
 * device with 20 ms of silence (the board starts it without waiting); while it fails it probes
 * again with the reconnect backoff, and any announcement that plays makes it healthy again.
 *
 * Volume: espeak-ng's amplitude (0–200, its default 100) is 1.5 × the volume in percent, so the
 * default volume (70 %) is about espeak-ng's default; tones are scaled the same way (wav.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { DeviceBase, faulty, HEALTHY } from '../device-base.js';
import { Backoff, type BackoffOptions } from '../reconnect.js';
import type { SpeechOutput, ToneStep } from '../types.js';
import { silenceWav, toneWav } from './wav.js';

export interface EspeakSpeechOptions {
  /** The ALSA PCM, e.g. "default", "plughw:CARD=Headphones", "plughw:Loopback,0,0". */
  readonly device: string;
  readonly rateWpm: number;
  /** After SIGTERM, how long a cut playback's processes have before SIGKILL. */
  readonly killGraceMs: number;
  /** The programs (names looked up in PATH, or paths). */
  readonly espeak: string;
  readonly aplay: string;
  /** Probe delays while the output fails. */
  readonly reconnect: BackoffOptions;
  readonly log: Logger;
}

/** espeak-ng's amplitude for a volume in percent. */
export function amplitudeOf(volume: number): number {
  return Math.round(Math.max(0, Math.min(100, volume)) * 1.5);
}

interface Stage {
  readonly command: string;
  readonly args: readonly string[];
}

/** What one playback ended with: played to its end, cut short, or failed (the reason in a tool's words). */
type Outcome = { readonly kind: 'played' } | { readonly kind: 'cut' } | { readonly kind: 'failed'; readonly reason: string };

const STDERR_KEEP = 2_048;

/** One pipeline of processes playing one announcement or tone. */
class Playback {
  private readonly children: ChildProcess[] = [];
  private cutShort = false;
  private killTimer: NodeJS.Timeout | null = null;
  readonly done: Promise<Outcome>;

  constructor(stages: readonly Stage[], input: string | Buffer) {
    const outcomes: Promise<string | null>[] = [];
    let previous: ChildProcess | null = null;
    for (const [i, stage] of stages.entries()) {
      const last = i === stages.length - 1;
      const child = spawn(stage.command, [...stage.args], { stdio: ['pipe', last ? 'ignore' : 'pipe', 'pipe'] });
      this.children.push(child);
      let stderr = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (d: string) => {
        if (stderr.length < STDERR_KEEP) stderr += d;
      });
      // A process that died early makes writes to it fail with EPIPE: its exit says why.
      child.stdin?.on('error', () => undefined);
      child.stdout?.on('error', () => undefined);
      if (previous?.stdout && child.stdin) previous.stdout.pipe(child.stdin);
      outcomes.push(
        new Promise((resolve) => {
          child.once('error', (e: NodeJS.ErrnoException) =>
            resolve(
              e.code === 'ENOENT' ? `${stage.command} not found (apt-get install ${stage.command === 'aplay' ? 'alsa-utils' : stage.command})` : e.message,
            ),
          );
          child.once('close', (code, signal) => {
            if (code === 0 || this.cutShort) return resolve(null);
            const line = stderr.trim().split('\n').filter(Boolean).pop();
            resolve(line ?? `${stage.command} exited with ${code ?? signal}`);
          });
        }),
      );
      previous = child;
    }
    this.children[0]?.stdin?.end(input);
    this.done = Promise.all(outcomes).then((reasons): Outcome => {
      if (this.cutShort) return { kind: 'cut' };
      // A program that is not there is the cause; otherwise the last stage's words (aplay's "audio
      // open error" rather than espeak-ng's broken pipe that follows from it).
      const reason = reasons.find((r) => r?.includes(' not found (apt-get install ')) ?? [...reasons].reverse().find((r) => r !== null);
      return reason === undefined || reason === null ? { kind: 'played' } : { kind: 'failed', reason };
    });
  }

  /** SIGTERM to every process still running, SIGKILL to those still running `graceMs` later. */
  cut(graceMs: number): Promise<Outcome> {
    this.cutShort = true;
    const running = (): ChildProcess[] => this.children.filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of running()) c.kill('SIGTERM');
    if (this.killTimer === null && running().length > 0) {
      this.killTimer = setTimeout(() => {
        for (const c of running()) c.kill('SIGKILL');
      }, graceMs);
      const clear = (): void => clearTimeout(this.killTimer ?? undefined);
      void this.done.then(clear);
    }
    return this.done;
  }
}

export class EspeakSpeech extends DeviceBase implements SpeechOutput {
  /** Playbacks whose processes have not all exited (one plays; cut ones may still be exiting). */
  private readonly live = new Set<Playback>();
  private generation = 0;
  private readonly probes: Backoff;
  private closed = false;

  constructor(private readonly o: EspeakSpeechOptions) {
    // Healthy until a probe or an announcement says otherwise: the probe runs in the background.
    super(`audio output (ALSA ${o.device}, espeak-ng)`);
    this.probes = new Backoff(o.reconnect);
  }

  /** Probe the device once now (20 ms of silence); a failure is health, retried with backoff. */
  async start(): Promise<void> {
    await this.probe();
  }

  say(text: string, voice: string, volume: number): Promise<void> {
    const espeak: Stage = { command: this.o.espeak, args: ['-v', voice, '-s', String(this.o.rateWpm), '-a', String(amplitudeOf(volume)), '--stdout'] };
    return this.play([espeak, this.aplay()], text);
  }

  tone(steps: readonly ToneStep[], volume: number): Promise<void> {
    return this.play([this.aplay()], toneWav(steps, volume));
  }

  async stop(): Promise<void> {
    this.generation += 1;
    await this.quiet();
  }

  /** Cut every playback and wait until their processes have exited (the device is free again). */
  private async quiet(): Promise<void> {
    await Promise.all([...this.live].map((p) => p.cut(this.o.killGraceMs)));
  }

  private aplay(): Stage {
    return { command: this.o.aplay, args: ['-q', '-D', this.o.device, '-t', 'wav', '-'] };
  }

  private async play(stages: readonly Stage[], input: string | Buffer): Promise<void> {
    const gen = ++this.generation;
    // The old one's aplay may hold the device (a hw PCM opens once): wait until it has let go.
    await this.quiet();
    // A newer one came meanwhile: it plays, this one never starts.
    if (gen !== this.generation || this.closed) return;
    const playback = new Playback(stages, input);
    this.live.add(playback);
    const outcome = await playback.done;
    this.live.delete(playback);
    this.judge(outcome);
  }

  private async probe(): Promise<void> {
    if (this.closed) return;
    // A probe never cuts an announcement; one that plays will judge the device itself.
    if (this.live.size > 0) return;
    const versions = new Playback([{ command: this.o.espeak, args: ['--version'] }], '');
    const espeak = await versions.done;
    if (espeak.kind === 'failed') return this.judge(espeak);
    this.judge(await new Playback([this.aplay()], silenceWav(20)).done);
  }

  private judge(outcome: Outcome): void {
    if (this.closed || outcome.kind === 'cut') return;
    if (outcome.kind === 'played') {
      this.probes.reset();
      this.probes.cancel();
      this.setHealth(HEALTHY);
      return;
    }
    const detail = `audio output ${this.o.device}: ${outcome.reason}`;
    if (this.health().detail !== detail) this.o.log.warn({ device: this.o.device, reason: outcome.reason }, 'audio output not working');
    this.setHealth(faulty(detail));
    if (this.probes.pending) return;
    this.probes.retry(() => void this.probe());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.probes.cancel();
    await this.stop();
    this.clearHealthListeners();
  }
}
