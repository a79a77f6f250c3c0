/**
 * What a recorded WAV holds, for the speech tests: its samples (16-bit PCM mono), how long it is,
 * how loud (RMS), and the frequency of a stretch of it (zero crossings: enough for a sine tone).
 */
import { readFileSync } from 'node:fs';

export interface Wav {
  readonly rate: number;
  readonly samples: Int16Array;
}

/** A 16-bit mono PCM WAV file (any chunk order; a streaming writer's unknown sizes tolerated). */
export function readWav(path: string): Wav {
  const b = readFileSync(path);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${path}: not a WAV file`);
  let rate = 0;
  for (let at = 12; at + 8 <= b.length;) {
    const id = b.toString('ascii', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      if (b.readUInt16LE(at + 8) !== 1 || b.readUInt16LE(at + 10) !== 1 || b.readUInt16LE(at + 22) !== 16) throw new Error(`${path}: not 16-bit mono PCM`);
      rate = b.readUInt32LE(at + 12);
    }
    if (id === 'data') {
      const end = Math.min(b.length, size === 0 || size === 0xffffffff ? b.length : at + 8 + size);
      const data = b.subarray(at + 8, end - ((end - at - 8) % 2));
      return { rate, samples: new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length)) };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

export function seconds(w: Wav): number {
  return w.samples.length / w.rate;
}

/** Root mean square of the samples in [from, to) seconds, as a fraction of full scale. */
export function rms(w: Wav, from = 0, to = seconds(w)): number {
  const a = Math.floor(from * w.rate);
  const z = Math.min(w.samples.length, Math.floor(to * w.rate));
  let sum = 0;
  for (let i = a; i < z; i++) sum += (w.samples[i] ?? 0) ** 2;
  return z > a ? Math.sqrt(sum / (z - a)) / 32_768 : 0;
}

/** The frequency of a tone in [from, to) seconds, from its zero crossings (Hz). */
export function frequency(w: Wav, from: number, to: number): number {
  const a = Math.floor(from * w.rate);
  const z = Math.min(w.samples.length, Math.floor(to * w.rate));
  let crossings = 0;
  for (let i = a + 1; i < z; i++) if ((w.samples[i - 1] ?? 0) < 0 !== (w.samples[i] ?? 0) < 0) crossings++;
  return crossings / 2 / ((z - a) / w.rate);
}
