/**
 * Proof that the station says the right thing. A station runtime on simulated hardware, its audio
 * output the real one (espeak-ng and aplay, src/devices/speech/espeak.ts) with ALSA's `file` plugin
 * as the sound card, is taken through its screens with speech on — the RFID ones too, tags laid on
 * the model reader behind the real driver (a set's "N missing", a tag that cannot be read, one item
 * at a time). Each announcement, as played:
 *
 * - English: recognised by Debian's pocketsphinx (en-us model) against a grammar of every English
 *   text of the station (each display text, line by line, and the spoken forms), and the words it
 *   heard must be the catalogue's text of that screen — a wrong text, or silence, fails (both shown
 *   to fail here, with a recording of another screen and one of silence);
 * - Czech: what the output was asked to say is the catalogue's Czech text of that screen, in the
 *   Czech voice: espeak-ng's own phonemes of it equal those of the catalogue text, with no switch
 *   to another language; and the audio is exactly espeak-ng's Czech rendering of the catalogue text;
 * - a PIN key: a tone (its frequency measured in the recording), and nothing said.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { ASSIST_TEXTS, TEXTS, type Locale } from '../../src/config/messages.js';
import { EspeakSpeech } from '../../src/devices/speech/espeak.js';
import { SimulatedHardware, simulatedHardwareFor } from '../../src/devices/simulated/hardware.js';
import { blankTag, iso28560_3Set, iso28560_3Tag } from '../../src/devices/simulated/tag-images.js';
import type { Device, SpeechOutput, StationHardware, ToneStep } from '../../src/devices/types.js';
import type { ServerAnswer } from '../../src/protocol/types.js';
import { spokenText } from '../../src/station/speech-player.js';
import { StationRuntime } from '../../src/station/runtime.js';
import { ScriptedSender } from '../support/scripted-sender.js';
import { STATION, waitFor } from '../support/shared.js';
import { requireTool, runs } from '../support/tools.js';
import { frequency, readWav, rms } from '../support/wav.js';

const MODEL = '/usr/share/pocketsphinx/model/en-us';
const TOOLS =
  requireTool('espeak-ng', runs('espeak-ng', ['--version']), 'espeak-ng') &&
  requireTool('aplay', runs('aplay', ['--version']), 'alsa-utils') &&
  requireTool('sox', runs('sox', ['--version']), 'sox') &&
  requireTool('pocketsphinx_batch', runs('sh', ['-c', 'command -v pocketsphinx_batch']), 'pocketsphinx') &&
  requireTool('the en-us model', runs('test', ['-f', `${MODEL}/cmudict-en-us.dict`]), 'pocketsphinx-en-us');

const dir = mkdtempSync(join(tmpdir(), 'speech-recognition-'));
const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;

interface Heard {
  readonly kind: 'say' | 'tone';
  readonly text: string;
  readonly voice: string | null;
  readonly wav: string;
}

/**
 * The real output, each announcement's recording kept as its own file once it has played. One at a
 * time: the next waits until the last one's file is copied (ALSA's file plugin writes the same file
 * each time), so none is cut here — the test picks the screens it checks by their text.
 */
class Recorder implements SpeechOutput {
  readonly heard: Heard[] = [];
  private readonly current: string;
  private chain: Promise<void> = Promise.resolve();
  readonly inner: EspeakSpeech;
  constructor(readonly name: string) {
    this.current = join(dir, `${name}-current.wav`);
    this.inner = new EspeakSpeech({
      device: `file:'${this.current}',wav`,
      rateWpm: 160,
      killGraceMs: 1_000,
      espeak: 'espeak-ng',
      aplay: 'aplay',
      reconnect: { initialMs: 100, maxMs: 1_000, factor: 2 },
      log: pino({ level: 'silent' }),
    });
  }
  private keep(kind: Heard['kind'], text: string, voice: string | null): void {
    const wav = join(dir, `${this.name}-${this.heard.length}.wav`);
    copyFileSync(this.current, wav);
    this.heard.push({ kind, text, voice, wav });
  }
  say(text: string, voice: string, volume: number): Promise<void> {
    return (this.chain = this.chain.then(async () => {
      await this.inner.say(text, voice, volume);
      this.keep('say', text, voice);
    }));
  }
  tone(steps: readonly ToneStep[], volume: number): Promise<void> {
    return (this.chain = this.chain.then(async () => {
      await this.inner.tone(steps, volume);
      this.keep('tone', steps.map((s) => `${s.hz}/${s.ms}`).join(' '), null);
    }));
  }
  stop = (): Promise<void> => this.inner.stop();
  health = () => this.inner.health();
  onHealthChange = (l: Parameters<Device['onHealthChange']>[0]) => this.inner.onHealthChange(l);
  close = () => this.inner.close();
}

/** A runtime on simulated hardware whose audio output is `recorder`; the server a script. */
async function station(locale: Locale, recorder: Recorder, script: (endpoint: string, body: object) => ServerAnswer | 'unanswered', withRfidReader = false) {
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: [1, 2, 3].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    // The RFID reader: the real driver on the model reader's in-process line.
    hardware: { kind: 'simulated', doorSpringMs: 20, ...(withRfidReader ? { rfidReader: { inventoryIntervalMs: 20, answerTimeoutMs: 200 } } : {}) },
    messages: { locale },
    timing: { doorAjarMs: 4_000, warnBeforeMs: 2_000, heartbeatIntervalMs: 60_000 },
    pin: { maxFailures: 2, lockoutMs: 30_000 },
  });
  if (!config) throw new Error(JSON.stringify(problems));
  const sim = withRfidReader
    ? simulatedHardwareFor(config, pino({ level: 'silent' }))
    : new SimulatedHardware({ boxNumbers: [1, 2, 3], doorSpringMs: 20, inputVoltage: 12, internetSignalStrength: 100 });
  await sim.ready;
  const hardware: StationHardware = {
    rfidReaders: sim.rfidReaders,
    locks: sim.locks,
    doors: sim.doors,
    scanners: sim.scanners,
    keypad: sim.keypad,
    cancelButton: sim.cancelButton,
    display: sim.display,
    power: sim.power,
    tamper: sim.tamper,
    buzzer: sim.buzzer,
    speech: recorder,
    assist: sim.assist,
    devices: () => [...sim.devices().filter((d) => d !== sim.speech), recorder],
    close: () => sim.close(),
  };
  const sender = new ScriptedSender((e, b) => script(e, b));
  const runtime = new StationRuntime({ config, hardware, client: sender, log: pino({ level: 'silent' }) });
  await runtime.start();
  return { runtime, sim, config };
}

const prompt: ServerAnswer = { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } };
const exception: ServerAnswer = { kind: 'exception', status: 404, exceptionType: 'InvalidPinException', displayMessages: [] };

/** After `act`, the first announcement (not a tone) saying `expected`: waited for, never more than 15 s. */
async function announced(r: Recorder, expected: string, act: () => void): Promise<Heard> {
  const n = r.heard.length;
  act();
  return waitFor(`"${expected}"`, () => r.heard.slice(n).find((h) => h.kind === 'say' && h.text === expected), 15_000);
}

// --- the grammar of every English text of the station --------------------------------------------

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty'];
const numberWords = (n: number): string => (n < 20 ? ONES[n]! : `${TENS[Math.floor(n / 10)]!}${n % 10 === 0 ? '' : ` ${ONES[n % 10]!}`}`);

/** A text as words the recogniser writes: lower case, numbers in words, no punctuation. */
function words(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, (d) => ` ${numberWords(Number(d))} `)
    .replace(/[^a-z' ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .join(' ');
}

/** Sentences as espeak-ng pauses between them: a display line each, split at . : ; ! ? (not commas). */
function sentences(text: string): string[] {
  return text
    .split(/[.:;!?]+/)
    .map(words)
    .filter((s) => s !== '');
}

/** Every English text of the station, each placeholder with the values a station shows. */
function englishTexts(): string[] {
  const t = TEXTS.en;
  const a = ASSIST_TEXTS.en;
  const out: string[] = [];
  for (const v of Object.values(t) as (string | readonly string[])[]) for (const line of typeof v === 'string' ? [v] : v) out.push(line);
  const expand = (line: string): string[] => {
    if (line.includes('{box}')) return [1, 2, 3].map((n) => line.replace('{box}', String(n)));
    if (line.includes('{time}'))
      return [...[1, 2, 3, 5, 10, 30, 45].map((n) => line.replace('{time}', `${n} seconds`)), ...[1, 2, 15].map((n) => line.replace('{time}', `${n} minutes`))];
    if (line.includes('{count}')) return [1, 2, 3, 4, 5, 6].map((n) => line.replace('{count}', String(n)));
    if (line.includes('{total}')) return [2, 3, 4].map((n) => line.replace('{total}', String(n)));
    if (line.includes('{missing}')) return [1, 2, 3].map((n) => line.replace('{missing}', String(n)));
    return [line.replace('{mask}', '')];
  };
  return [...out, a.instructions, a.pinTyped].flatMap(expand);
}

function grammar(): string {
  const all = [...new Set(englishTexts().flatMap(sentences))];
  return `#JSGF V1.0;\ngrammar station;\npublic <utt> = <s>+;\n<s> = ${all.join(' | ')};\n`;
}

/**
 * The model's dictionary, plus the grammar's compound words it lacks ("barcode") as their two
 * halves' pronunciations one after the other; a word that is neither fails here, by name.
 */
function dictionary(gram: string): string {
  const cmu = readFileSync(`${MODEL}/cmudict-en-us.dict`, 'utf8');
  const known = new Map<string, string>();
  for (const line of cmu.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && !known.has(line.slice(0, sp))) known.set(line.slice(0, sp), line.slice(sp + 1));
  }
  const extra: string[] = [];
  for (const word of new Set(gram.split(/[^a-z']+/))) {
    if (word === '' || known.has(word) || ['jsgf', 'v', 'grammar', 'station', 'public', 'utt', 's'].includes(word)) continue;
    const split = [...word].map((_, i) => [word.slice(0, i), word.slice(i)] as const).find(([a, b]) => known.has(a) && known.has(b));
    expect(split, `"${word}" is neither in the en-us dictionary nor two of its words`).toBeDefined();
    extra.push(`${word} ${known.get(split![0])!} ${known.get(split![1])!}`);
  }
  const file = join(dir, 'station.dict');
  writeFileSync(file, `${cmu.trimEnd()}\n${extra.join('\n')}\n`);
  return file;
}

/** pocketsphinx_batch over the recordings (one run for all), with the station's grammar: what it heard in each. */
function recognise(wavs: readonly string[]): string[] {
  const gram = join(dir, 'station.gram');
  const text = grammar();
  writeFileSync(gram, text);
  const names = wavs.map((w, i) => {
    execFileSync('sox', [w, '-r', '16000', '-c', '1', '-b', '16', join(dir, `asr-${i}.wav`)]);
    return `asr-${i}`;
  });
  writeFileSync(join(dir, 'ctl'), `${names.join('\n')}\n`);
  const hyp = join(dir, 'hyp');
  const r = spawnSync(
    'pocketsphinx_batch',
    [
      '-adcin',
      'yes',
      '-adchdr',
      '44',
      '-cepdir',
      dir,
      '-cepext',
      '.wav',
      '-ctl',
      join(dir, 'ctl'),
      '-jsgf',
      gram,
      '-hmm',
      `${MODEL}/en-us`,
      '-dict',
      dictionary(text),
      '-hyp',
      hyp,
      '-logfn',
      join(dir, 'asr.log'),
    ],
    { encoding: 'utf8' },
  );
  expect(r.status, readFileSync(join(dir, 'asr.log'), 'utf8').slice(-2000)).toBe(0);
  // One line per recording: "the words heard (asr-N score)".
  const heard = new Map<string, string>();
  for (const line of readFileSync(hyp, 'utf8').split('\n')) {
    const m = /^(.*)\((\S+) -?\d+\)\s*$/.exec(line);
    if (m) heard.set(m[2]!, m[1]!.trim());
  }
  return names.map((n) => heard.get(n) ?? '(no result)');
}

// --- the tests ---------------------------------------------------------------------------------------

describe.runIf(TOOLS)('what the station says', () => {
  const en = TEXTS.en;
  const assist = ASSIST_TEXTS.en;
  const said: { screen: string; heard: Heard; expected: string }[] = [];
  const recorders: Recorder[] = [];

  beforeAll(async () => {
    const recorder = new Recorder('en');
    recorders.push(recorder);
    let pins = 0;
    const { runtime, sim } = await station('en', recorder, (endpoint) => {
      if (endpoint === 'pin-enter') return (pins++, exception);
      return prompt;
    });
    const say = async (on: Recorder, screen: string, expected: readonly string[], act: () => void): Promise<void> => {
      const text = spokenText(expected);
      said.push({ screen, heard: await announced(on, text, act), expected: text });
    };
    await waitFor('idle', () => runtime.snapshot().mode.kind === 'idle');
    await say(recorder, 'prompt with the instructions', [...en.prompt, assist.instructions], () => sim.pressAssist('speech'));
    for (const d of '789') sim.pressKey({ kind: 'digit', digit: d });
    await waitFor('three tones', () => recorder.heard.filter((h) => h.kind === 'tone').length === 3);
    await say(recorder, 'PIN typed', [en.prompt[0]!, assist.pinTyped.replace('{count}', '3')], () => sim.pressAssist('speech'));
    await say(recorder, 'PIN too short', en.pinLength, () => sim.pressKey({ kind: 'enter' }));
    await say(recorder, 'wrong PIN', en.serverError, () => sim.typePin('000000'));
    await say(recorder, 'lock-out', [en.pinLockout[0]!, en.pinLockout[1]!.replace('{time}', '30 seconds')], () => sim.typePin('000000'));
    await runtime.stop();
    // A new station for what needs the keypad free: a pickup, the box left open, the cabinet opened.
    const r2 = new Recorder('en2');
    recorders.push(r2);
    let opened = false;
    const closing: ServerAnswer = { kind: 'command', command: { type: 'wait-for-closing', boxes: [BOX(2)], displayMessages: [], cancellable: false } };
    const s2 = await station('en', r2, (endpoint) =>
      endpoint === 'pin-enter'
        ? { kind: 'command', command: { type: 'box-open', boxes: [BOX(2)], displayMessages: [] } }
        : endpoint === 'state' && opened
          ? closing
          : prompt,
    );
    await waitFor('idle', () => s2.runtime.snapshot().mode.kind === 'idle');
    await announced(r2, spokenText([...en.prompt, assist.instructions]), () => s2.sim.pressAssist('speech'));
    opened = true;
    await say(r2, 'box open: close it', en.boxOpen, () => s2.sim.typePin('123456'));
    await say(r2, 'more time, box 2', [...en.moreTime, en.doorAjar[0]!.replace('{box}', '2')], () => undefined);
    await say(r2, 'box 2 ajar', [en.doorAjar[0]!.replace('{box}', '2')], () => undefined);
    opened = false;
    s2.sim.closeDoor(2);
    await say(r2, 'out of service', en.tamper, () => s2.sim.openTamper());
    await s2.runtime.stop();
    expect(pins).toBe(2);
    // A station with a host-mode RFID reader for its screens: a set with a part missing, a tag that
    // cannot be read, two items at once.
    const r3 = new Recorder('en3');
    recorders.push(r3);
    const s3 = await station('en', r3, () => prompt, true);
    await waitFor('idle, the reader up', () => s3.runtime.snapshot().mode.kind === 'idle' && s3.sim.rfidReaders.every((r) => r.health().ok));
    await announced(r3, spokenText([...en.prompt, assist.instructions]), () => s3.sim.pressAssist('speech'));
    const [p1, p2] = iso28560_3Set({ itemId: 'SET-9', of: 3, afi: 0x07 });
    await say(
      r3,
      'a set: one part missing',
      en.rfidSetIncomplete.map((l) => l.replace('{total}', '3').replace('{missing}', '1')),
      () => {
        s3.sim.placeTag(p1!);
        s3.sim.placeTag(p2!);
      },
    );
    s3.sim.removeTag(p1!.uid);
    s3.sim.removeTag(p2!.uid);
    await waitFor('the reader empty', () => s3.runtime.snapshot().rfid.fields[s3.sim.rfidReaders[0]!.name]?.tags.length === 0);
    const blank = blankTag();
    await say(r3, 'a tag that cannot be read', en.rfidUnreadable, () => s3.sim.placeTag(blank));
    s3.sim.removeTag(blank.uid);
    await waitFor('the reader empty again', () => s3.runtime.snapshot().rfid.fields[s3.sim.rfidReaders[0]!.name]?.tags.length === 0);
    await say(r3, 'one item at a time', en.rfidOneItem, () => {
      s3.sim.placeTag(iso28560_3Tag({ itemId: 'ONE-1', afi: 0x07 }));
      s3.sim.placeTag(iso28560_3Tag({ itemId: 'TWO-2', afi: 0x07 }));
    });
    await s3.runtime.stop();
  }, 180_000);

  afterAll(async () => {
    for (const r of recorders) await r.close();
  });

  it('each English announcement is the catalogue text of its screen, and pocketsphinx hears exactly that text in the recording', () => {
    expect(said.map((s) => s.screen)).toEqual([
      'prompt with the instructions',
      'PIN typed',
      'PIN too short',
      'wrong PIN',
      'lock-out',
      'box open: close it',
      'more time, box 2',
      'box 2 ajar',
      'out of service',
      'a set: one part missing',
      'a tag that cannot be read',
      'one item at a time',
    ]);
    for (const s of said) {
      expect(s.heard.text, s.screen).toBe(s.expected);
      expect(s.heard.voice, s.screen).toBe('en-us');
    }
    // Two controls that must fail the same check: another screen's speech, and silence.
    const wrong = join(dir, 'control-wrong.wav');
    execFileSync('sh', ['-c', `espeak-ng -v en-us -s 160 --stdout ${JSON.stringify(spokenText(en.stationOff))} > ${wrong}`]);
    const silence = join(dir, 'control-silence.wav');
    execFileSync('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', silence, 'trim', '0', '2']);
    const heard = recognise([...said.map((s) => s.heard.wav), wrong, silence]);
    const report = said.map((s, i) => ({ screen: s.screen, expected: words(s.expected), heard: heard[i] }));
    console.error(
      `figure: pocketsphinx heard ${report.filter((r) => r.heard === r.expected).length} of ${report.length} announcements exactly:\n${report.map((r) => `  ${r.screen}: ${r.heard === r.expected ? 'ok' : `"${r.heard}" for "${r.expected}"`}`).join('\n')}`,
    );
    for (const r of report) expect(r.heard, r.screen).toBe(r.expected);
    // The controls: labelled as the tamper screen, neither is heard as it.
    expect(heard.at(-2)).not.toBe(words(spokenText(en.tamper)));
    expect(heard.at(-2)).toBe(words(spokenText(en.stationOff)));
    expect(heard.at(-1)).toBe('');
  });

  it('a PIN key sounds its tone (880 Hz, as the key tone is) and says nothing: between the prompt and the next announcement, tones only', () => {
    const heard = recorders[0]!.heard;
    expect(heard[0]?.kind).toBe('say');
    const keys = heard.slice(1, 4);
    expect(keys.map((h) => h.kind)).toEqual(['tone', 'tone', 'tone']);
    expect(heard[4]?.kind).toBe('say');
    // The screen said after them counts the digits, and never says one of them (7, 8, 9 were typed).
    expect(heard[4]?.text).toBe(spokenText([TEXTS.en.prompt[0]!, ASSIST_TEXTS.en.pinTyped.replace('{count}', '3')]));
    expect(heard[4]?.text).not.toMatch(/[789]|seven|eight|nine/);
    for (const k of keys) {
      const w = readWav(k.wav);
      expect(frequency(w, 0.01, 0.06)).toBeCloseTo(880, -1);
      expect(rms(w, 0.01, 0.06)).toBeGreaterThan(0.1);
    }
  });
});

describe.runIf(TOOLS)('what the station says in Czech', () => {
  const cs = TEXTS.cs;
  const phonemes = (text: string): string => execFileSync('espeak-ng', ['-v', 'cs', '-q', '-x', text], { encoding: 'utf8' }).trim().replace(/\s+/g, ' ');

  it('each Czech announcement is the catalogue text in the Czech voice: the same phonemes, no other language, the same audio', async () => {
    const r = new Recorder('cs');
    const { runtime, sim } = await station('cs', r, (endpoint) => (endpoint === 'pin-enter' ? exception : prompt));
    try {
      await waitFor('idle', () => runtime.snapshot().mode.kind === 'idle');
      const screens: [string, readonly string[], () => void][] = [
        ['výzva', [...cs.prompt, ASSIST_TEXTS.cs.instructions], () => sim.pressAssist('speech')],
        ['PIN krátký', cs.pinLength, () => sim.pressKey({ kind: 'enter' })],
        ['chyba', cs.serverError, () => sim.typePin('111111')],
        ['zablokováno', [cs.pinLockout[0]!, cs.pinLockout[1]!, cs.pinLockout[2]!.replace('{time}', '30 sekund')], () => sim.typePin('111111')],
      ];
      for (const [name, expected, act] of screens) {
        const text = spokenText(expected);
        const h = await announced(r, text, act);
        const n = r.heard.indexOf(h);
        expect(h.voice, name).toBe('cs');
        const said = phonemes(h.text);
        expect(said, name).toBe(phonemes(text));
        // espeak-ng marks a switch to another language's rules as "(en)": never here.
        expect(said, name).not.toMatch(/\([a-z]{2}\)/);
        // The recording is espeak-ng's own Czech rendering of the catalogue text (at the station's rate and amplitude).
        const ref = join(dir, `cs-ref-${n}.wav`);
        execFileSync('sh', ['-c', `espeak-ng -v cs -s 160 -a 105 --stdout ${JSON.stringify(text)} | aplay -q -D "file:'${ref}',wav" -`]);
        expect(Buffer.compare(Buffer.from(readWav(h.wav).samples.buffer), Buffer.from(readWav(ref).samples.buffer)), name).toBe(0);
      }
      // Czech phonemes, not English letters: "ř" and "ch" as Czech has them.
      expect(phonemes(spokenText(cs.pinLockout.map((l) => l.replace('{time}', '30 sekund'))))).toMatch(/pR\^'i:liS .* x'ibni:x p'inu:/);
    } finally {
      await runtime.stop();
      await r.close();
    }
  }, 60_000);
});
