/**
 * Tones as WAV: 16-bit mono PCM at espeak-ng's own rate (22,050 Hz), so that aplay plays tones
 * and speech with the same settings. Each step is a sine at its frequency (0 Hz: silence) with a
 * 5 ms fade in and out, so that a tone starts and ends without a click. Pure.
 */
import type { ToneStep } from '../types.js';

export const SAMPLE_RATE = 22_050;
const FADE_S = 0.005;
/** Full scale at 100 % volume: a little headroom below clipping. */
const PEAK = 0.6 * 32_767;

/** A WAV file header for `dataBytes` bytes of 16-bit mono PCM at `rate`. */
export function wavHeader(dataBytes: number, rate = SAMPLE_RATE): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** The tone's steps as one WAV file, at `volume` percent. */
export function toneWav(steps: readonly ToneStep[], volume: number): Buffer {
  const amplitude = (PEAK * Math.max(0, Math.min(100, volume))) / 100;
  const counts = steps.map((s) => Math.round((s.ms / 1000) * SAMPLE_RATE));
  const total = counts.reduce((a, b) => a + b, 0);
  const data = Buffer.alloc(total * 2);
  let at = 0;
  steps.forEach((step, i) => {
    const n = counts[i] ?? 0;
    const fade = Math.max(1, Math.min(Math.round(FADE_S * SAMPLE_RATE), Math.floor(n / 2)));
    for (let k = 0; k < n; k++) {
      const envelope = Math.min(1, k / fade, (n - 1 - k) / fade);
      const v = step.hz === 0 ? 0 : amplitude * envelope * Math.sin((2 * Math.PI * step.hz * k) / SAMPLE_RATE);
      data.writeInt16LE(Math.round(v), (at + k) * 2);
    }
    at += n;
  });
  return Buffer.concat([wavHeader(data.length), data]);
}

/** A short silence (the output's probe: it opens the device and plays nothing audible). */
export function silenceWav(ms: number): Buffer {
  const n = Math.round((ms / 1000) * SAMPLE_RATE);
  return Buffer.concat([wavHeader(n * 2), Buffer.alloc(n * 2)]);
}
