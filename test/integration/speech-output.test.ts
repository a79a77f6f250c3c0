/**
 * The audio output as the board runs it (src/devices/speech/espeak.ts): Debian's espeak-ng and
 * aplay as real processes, and ALSA's own `file` plugin as the sound card (the last hardware
 * boundary: what aplay would play is written to a WAV here). What it plays is the text asked for, in
 * the voice asked for, at the volume asked for; a tone is its frequencies; a device that cannot be
 * opened is the output's health in aplay's own words, never an exception, and it comes back.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakSpeech } from '../../src/devices/speech/espeak.js';
import type { DeviceHealth } from '../../src/devices/types.js';
import { requireTool, runs } from '../support/tools.js';
import { waitFor } from '../support/shared.js';
import { frequency, readWav, rms, seconds } from '../support/wav.js';

const TOOLS = requireTool('espeak-ng', runs('espeak-ng', ['--version']), 'espeak-ng') && requireTool('aplay', runs('aplay', ['--version']), 'alsa-utils');
const dir = mkdtempSync(join(tmpdir(), 'speech-output-'));
const fileDevice = (name: string): string => `file:'${join(dir, name)}',wav`;
const outputs: EspeakSpeech[] = [];

function output(device: string): EspeakSpeech {
  const o = new EspeakSpeech({
    device,
    rateWpm: 160,
    killGraceMs: 1_000,
    espeak: 'espeak-ng',
    aplay: 'aplay',
    reconnect: { initialMs: 50, maxMs: 200, factor: 2 },
    log: pino({ level: 'silent' }),
  });
  outputs.push(o);
  return o;
}

afterEach(async () => {
  for (const o of outputs.splice(0)) await o.close();
});

describe.runIf(TOOLS)('the espeak-ng audio output', () => {
  it('speaks the text in the voice and at the volume asked for: a WAV of speech, louder at a higher volume', async () => {
    const loud = output(fileDevice('loud.wav'));
    await loud.say('Please close the box first.', 'en-us', 100);
    const soft = output(fileDevice('soft.wav'));
    await soft.say('Please close the box first.', 'en-us', 30);
    const a = readWav(join(dir, 'loud.wav'));
    const b = readWav(join(dir, 'soft.wav'));
    expect(a.rate).toBe(22_050);
    expect(seconds(a)).toBeGreaterThan(1);
    expect(seconds(a)).toBeCloseTo(seconds(b), 1);
    expect(rms(a)).toBeGreaterThan(0.02);
    expect(rms(a) / rms(b)).toBeGreaterThan(2.5);
    expect(loud.health()).toEqual({ ok: true, detail: null });
  });

  it('a tone is its steps: 880 Hz, a pause, 1320 Hz (Enter), at the volume asked for', async () => {
    const o = output(fileDevice('enter.wav'));
    await o.tone(
      [
        { hz: 880, ms: 200 },
        { hz: 0, ms: 100 },
        { hz: 1320, ms: 200 },
      ],
      80,
    );
    const w = readWav(join(dir, 'enter.wav'));
    // (ALSA pads the last period with silence.)
    expect(seconds(w)).toBeGreaterThanOrEqual(0.5);
    expect(rms(w, 0.5, seconds(w))).toBe(0);
    expect(frequency(w, 0.02, 0.18)).toBeCloseTo(880, -1);
    expect(rms(w, 0.21, 0.29)).toBe(0);
    expect(frequency(w, 0.32, 0.48)).toBeCloseTo(1320, -1);
    expect(rms(w, 0.05, 0.15)).toBeGreaterThan(0.3);
  });

  it("no such device: health says why in aplay's words, nothing is thrown, and a device that works makes it healthy again", async () => {
    const o = output('nosuchcard');
    const seen: DeviceHealth[] = [];
    o.onHealthChange((h) => seen.push(h));
    await o.start();
    await waitFor('unhealthy', () => !o.health().ok);
    expect(o.health().detail).toMatch(/^audio output nosuchcard: aplay: .*audio open error/);
    await expect(o.say('Hello', 'en-us', 70)).resolves.toBeUndefined();
    // An announcement on it fails the same way, in aplay's words (not espeak-ng's broken pipe).
    expect(o.health().detail).toMatch(/^audio output nosuchcard: aplay: .*audio open error/);
    expect(seen.filter((h) => !h.ok)).toHaveLength(1);
    const missing = new EspeakSpeech({
      device: fileDevice('x.wav'),
      rateWpm: 160,
      killGraceMs: 1_000,
      espeak: 'espeak-ng-missing',
      aplay: 'aplay',
      reconnect: { initialMs: 50, maxMs: 200, factor: 2 },
      log: pino({ level: 'silent' }),
    });
    outputs.push(missing);
    await missing.start();
    expect(missing.health().detail).toBe(`audio output ${fileDevice('x.wav')}: espeak-ng-missing not found (apt-get install espeak-ng-missing)`);
    rmSync(join(dir, 'back.wav'), { force: true });
    const back = output(fileDevice('back.wav'));
    await back.start();
    expect(back.health().ok).toBe(true);
    expect(existsSync(join(dir, 'back.wav'))).toBe(true);
  });

  it('a new announcement cuts the one playing, or the one not yet started; stop() cuts it too', async () => {
    const o = output(fileDevice('cut.wav'));
    const first = o.say('Station out of service. Sorry for the inconvenience.', 'en-us', 70);
    const second = o.say('Please wait.', 'en-us', 70);
    await Promise.all([first, second]);
    // The file is the last one played: the second text, not the first.
    expect(seconds(readWav(join(dir, 'cut.wav')))).toBeLessThan(1.5);
    await o.stop();
    expect(o.health().ok).toBe(true);
  });
});

describe('an announcement cut short', () => {
  it('a process that ignores SIGTERM gets SIGKILL after speech.killGraceMs: stop() ends and the device is free', async () => {
    // An aplay that is stuck: SIGTERM ignored (kept across exec), never exits by itself.
    const stuck = join(dir, 'stuck-aplay');
    const pidFile = join(dir, 'stuck.pid');
    writeFileSync(stuck, `#!/bin/sh\necho $$ > '${pidFile}'\ntrap '' TERM\nexec sleep 600\n`);
    chmodSync(stuck, 0o755);
    const o = new EspeakSpeech({
      device: 'default',
      rateWpm: 160,
      killGraceMs: 200,
      espeak: 'espeak-ng',
      aplay: stuck,
      reconnect: { initialMs: 50, maxMs: 200, factor: 2 },
      log: pino({ level: 'silent' }),
    });
    outputs.push(o);
    const playing = o.tone([{ hz: 880, ms: 100 }], 70);
    await waitFor('the stuck aplay runs', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await o.stop();
    await playing;
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
