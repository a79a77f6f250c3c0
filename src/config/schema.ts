/**
 * The one config schema (built with src/schema.ts). Every key has its default here; docs/config.md
 * documents each. Protocol defaults are the spec's: answer timeout 20 s, 3 attempts, heartbeat at
 * most every 30 s.
 *
 * Validation reports every problem at once with its path and the bad value (see load.ts).
 *
 * Every key also says how a reload applies it (apply.ts): `live`, `restartsStation` (the reload
 * restarts the station in-process) or `restartsProcess` (read once at start). A section wrapped as
 * a whole gives its class to its keys; a key inside may declare its own.
 */
import * as z from '../schema.js';
import { intIn, nonEmpty } from '../schema.js';
import { live, restartsProcess, restartsStation } from './apply.js';
import { boardHardwareSchema } from '../devices/board-config.js';
import { kioskDisplaySchema } from '../devices/input/schema.js';
import { technicianConfigSchema } from './technician.js';
import { HARD_MAX_PULSE_MS } from '../devices/types.js';
import { metricsConfigSchema } from '../metrics/config.js';
import { portalConfigSchema } from '../portal/config.js';
import { simulatedRfidReaderSchema } from '../devices/rfid/schema.js';
import { rfidConfigSchema } from './rfid.js';
import { ASSIST_TEXTS, LOCALES, TEXTS, type AssistTexts, type Messages, type Texts } from './messages.js';
import { UUID_V4_RE } from '../uuid.js';

const uuidV4Lower = z.string().check(z.regex(UUID_V4_RE, 'must be a lowercase UUIDv4'));
const durationMs = (dflt: number, min = 1, max = 24 * 3600_000) => z._default(intIn(min, max), dflt);

export const boxSchema = z.strictObject({
  /** 1-based position in the station, as printed on the door; boards map numbers to lines. */
  number: intIn(1, 999),
  /** The boxId (UUIDv4, lowercase) the library system knows. */
  id: uuidV4Lower,
});

export const stationSchema = z
  .strictObject({
    id: uuidV4Lower,
    /** File holding the station password; default: $CREDENTIALS_DIRECTORY/station-password. */
    passwordFile: z.optional(nonEmpty()),
    boxes: z.array(boxSchema).check(z.minLength(1), z.maxLength(999)),
  })
  .check(
    z.superRefine((s, ctx) => {
      const seenIds = new Set<string>();
      const seenNumbers = new Set<number>();
      s.boxes.forEach((b, i) => {
        if (seenIds.has(b.id)) ctx.addIssue({ code: 'custom', path: ['boxes', i, 'id'], message: 'duplicate box id', input: b.id });
        if (seenNumbers.has(b.number)) ctx.addIssue({ code: 'custom', path: ['boxes', i, 'number'], message: 'duplicate box number', input: b.number });
        seenIds.add(b.id);
        seenNumbers.add(b.number);
      });
    }),
  );

export const serverSchema = z.strictObject({
  /** Scheme, domain and path up to (not including) the version segment. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** The versioned path segment appended to baseUrl. */
  version: z._default(z.string().check(z.regex(/^[A-Za-z0-9._-]+$/)), 'v2'),
  /** Wait this long for an answer before resending (spec: 20 s). */
  answerTimeoutMs: durationMs(20_000, 10, 600_000),
  /** Attempts per event, the first included (spec: 3 = 2 resends). */
  attempts: z._default(intIn(1, 10), 3),
  /** Sent as Accept-Language; null: derived from messages.locale (ACCEPT_LANGUAGE in messages.ts). */
  acceptLanguage: z._default(z.nullable(nonEmpty()), null),
  /** Extra CA bundle file for a library server with a private CA. */
  caFile: z._default(z.nullable(nonEmpty()), null),
  /**
   * Largest answer body read; a longer one is abandoned mid-stream and counts as unanswered. The
   * protocol's answers are a few hundred bytes; 64 KiB leaves room for long display texts.
   */
  maxAnswerBytes: z._default(intIn(1_024, 16_777_216), 65_536),
});

/**
 * The server considers a station without a /state for this long unavailable, forbids every box
 * action and alerts its administrators (spec, "Timing"): a heartbeat interval must stay below it.
 */
export const SERVER_UNAVAILABLE_AFTER_MS = 120_000;

export const timingSchema = z.strictObject({
  /**
   * Longest time between two /state requests (spec default 30 s). Below the server's 2-minute
   * unavailability window, or an idle, healthy station would be reported off between heartbeats.
   */
  heartbeatIntervalMs: z._default(
    z
      .number()
      .check(
        z.int(),
        z.minimum(100),
        z.lt(
          SERVER_UNAVAILABLE_AFTER_MS,
          `must be below ${SERVER_UNAVAILABLE_AFTER_MS} (the server considers a station unavailable after 2 minutes without a /state)`,
        ),
      ),
    30_000,
  ),
  /**
   * A typed PIN is cleared after this long without a key. The patron is warned `warnBeforeMs`
   * before (at half time for a shorter limit) and may ask for more time.
   */
  pinIdleMs: durationMs(40_000),
  /** Temporary messages (refusals, errors) stay this long before the prompt returns. */
  messageMs: durationMs(5_000),
  /** The same identifier read again within this window is a scanner double-read and is dropped. */
  duplicateScanWindowMs: durationMs(1_500, 0),
  /** A pulsed box whose door does not report OPEN within this time is reported as not opened. */
  doorOpenTimeoutMs: durationMs(4_000),
  /** A door still OPEN this long after it opened raises the door-ajar alarm. */
  doorAjarMs: durationMs(120_000, 1_000),
  /** While a door stays ajar, the buzzer's reminder pattern repeats this often. */
  doorAjarReminderMs: durationMs(30_000, 1_000),
  /**
   * A time limit the patron faces (pinIdleMs, doorAjarMs) is announced this long before it runs out
   * (text, sound, and speech when on), at half time for a limit shorter than twice this; any key
   * then gives the whole limit again. 0: no warnings.
   */
  warnBeforeMs: durationMs(20_000, 0, 600_000),
  /** How many times one patron may ask for more time in a row; then the limit runs out unannounced. */
  maxExtensions: z._default(intIn(0, 1_000), 10),
  /**
   * The patron has gone once the station has waited at its prompt this long since their last
   * input: speech they started goes off, the volume and the kiosk page's contrast and text size go
   * back to the defaults.
   */
  sessionEndMs: durationMs(120_000, 1_000),
  /**
   * A graceful stop (SIGTERM) finishes what is in flight for at most this long, then drives every
   * lock OFF and exits. Must stay below the unit's TimeoutStopSec= (test/e2e/systemd-unit.test.ts).
   */
  drainLimitMs: restartsProcess(durationMs(30_000, 0, 600_000)),
  /**
   * After the drain, every lock is OFF first; the steps after it (the technician port, metrics,
   * systemd's last messages) together get at most this long, then the process exits whatever a
   * step does. drainLimitMs + stopLimitMs must stay below the unit's TimeoutStopSec=.
   */
  stopLimitMs: restartsProcess(durationMs(10_000, 1_000, 60_000)),
  /**
   * A reload that must restart the station (it changes a station key) waits at most this long for
   * no reader to be using it, then is refused and the running config stays. Below the unit's
   * TimeoutStartSec=, which bounds `systemctl reload`.
   */
  reloadWaitLimitMs: live(durationMs(60_000, 0, 600_000)),
  /**
   * A reload that restarts the station gives the old station's stop, and then the new one's start,
   * at most this long each; a stop that does not end in time stops the process (exit 1: systemd
   * starts it again, every lock OFF). A start that does not is given this long once more to end and
   * let its hardware go, then the previous config starts again (or, failing that, the process
   * stops). The supervisor's stop waits this long for a reload it aborts.
   */
  stationSwapLimitMs: live(durationMs(15_000, 1_000, 120_000)),
  /**
   * A technician's action that acts as a reader (an injected scan or PIN, a box opening, the
   * self-test) waits at most this long for a protocol event in flight — usually a heartbeat — to
   * be answered before it judges whether the station is free.
   */
  technicianQuietWaitMs: live(durationMs(3_000, 0, 60_000)),
  /**
   * At start, the technician port (and so READY=1) waits at most this long for the first /state to
   * be written to the network, so that loading it does not delay the station's first report.
   */
  firstReportHeadStartMs: restartsProcess(durationMs(250, 0, 10_000)),
});

/** The PIN brute-force throttle (src/station/core/pin-throttle.ts). */
export const pinSchema = z
  .strictObject({
    /** Exception answers to /pin-enter in a row before the keypad is locked. */
    maxFailures: z._default(intIn(1, 100), 5),
    /** The first lock-out; doubled with each further failure ... */
    lockoutMs: durationMs(30_000, 1_000),
    /** ... up to this. */
    maxLockoutMs: durationMs(900_000, 1_000),
    /** The display's countdown steps this often. */
    countdownTickMs: durationMs(1_000, 100, 60_000),
  })
  .check(
    z.superRefine((p, ctx) => {
      if (p.maxLockoutMs < p.lockoutMs)
        ctx.addIssue({ code: 'custom', path: ['maxLockoutMs'], message: `must be at least lockoutMs (${p.lockoutMs})`, input: p.maxLockoutMs });
    }),
  );

/** A buzzer pattern: milliseconds on, off, on, ... starting and ending with a sound. */
const patternSchema = z.array(intIn(10, 5_000)).check(
  z.minLength(1),
  z.maxLength(31),
  z.refine((p) => p.length % 2 === 1, 'needs an odd number of durations (on, off, on, ...: it starts and ends with a sound)'),
);

/** What the buzzer plays (the line is in the board profile; the demo rings the terminal bell). */
export const buzzerSchema = z.strictObject({
  patterns: z.prefault(
    z.strictObject({
      /** An accepted scan or key. */
      accepted: z._default(patternSchema, [60]),
      /** A refusal or an exception answer: a double beep. */
      refused: z._default(patternSchema, [80, 80, 80]),
      /** Forced open and tamper. */
      alarm: z._default(patternSchema, [400, 150, 400, 150, 400, 150, 400]),
      /** Door ajar, repeated every timing.doorAjarReminderMs. */
      reminder: z._default(patternSchema, [200, 300, 200]),
      /** A time limit is about to run out (timing.warnBeforeMs): three short beeps. */
      warning: z._default(patternSchema, [120, 120, 120, 120, 120]),
    }),
    {},
  ),
});

export const lockSchema = z.strictObject({
  /** How long a lock solenoid is energized per opening. */
  pulseMs: z._default(intIn(10, HARD_MAX_PULSE_MS), 600),
});

/** The kiosk page's words (AssistTexts.kiosk), each overridable in `messages.assist.kiosk`. */
const KIOSK_WORDS = [
  'title',
  'keypad',
  'backspace',
  'clear',
  'enter',
  'speech',
  'volumeDown',
  'volumeUp',
  'contrast',
  'largeText',
  'moreTime',
  'settings',
  'connecting',
  'unauthorised',
] as const satisfies readonly (keyof AssistTexts['kiosk'])[];

// A station text replaces the whole screen: an empty one (or all blank lines) would leave a reader
// in front of a blank display, which says neither "working" nor "broken".
const lines = z.optional(
  z.array(z.string()).check(z.refine((ls) => ls.some((l) => l.trim() !== ''), 'must have at least one line that is not blank (the display would be empty)')),
);
const line = z.optional(z.string());

/**
 * Texts the station shows on its own (server texts come with each command): the set of
 * `locale` (src/config/messages.ts), any key overriding that text alone.
 */
export const messagesSchema = z.pipe(
  z.strictObject({
    locale: z._default(z.enum(LOCALES), 'en'),
    starting: lines,
    prompt: lines,
    pinEntry: line,
    pinLength: lines,
    busy: lines,
    boxOpen: lines,
    cannotCancel: lines,
    unreadable: lines,
    serverError: lines,
    stationOff: lines,
    disabled: lines,
    /** Shown while the station stops (drain): new input is refused. */
    restarting: lines,
    /** After a restart that cut a deposit or pickup short before its box opened. */
    restartedNotOpened: lines,
    /** After a restart that cut a deposit or pickup short once its box had opened. */
    restartedOpened: lines,
    tamper: lines,
    doorAjar: lines,
    pinLockout: lines,
    serviceOpen: line,
    rfidUnreadable: lines,
    rfidOneItem: lines,
    rfidSetIncomplete: lines,
    /** Added under a deposit's screens when its item's tag says careful handling. */
    rfidCarefulHandling: line,
    /** Added under a deposit's screens when its item's tag says small item. */
    rfidSmallItem: line,
    rfidPutBack: lines,
    rfidSecurityFailed: lines,
    moreTime: lines,
    /** Speech's instructions, the spoken PIN and countdown, the kiosk page's words: any key overrides that text alone. */
    assist: z.optional(
      z.strictObject({
        instructions: z.optional(nonEmpty()),
        pinTyped: z.optional(nonEmpty()),
        seconds: z.optional(z.array(nonEmpty()).check(z.minLength(1), z.maxLength(3))),
        minutes: z.optional(z.array(nonEmpty()).check(z.minLength(1), z.maxLength(3))),
        kiosk: z.optional(z.partialRecord(z.enum(KIOSK_WORDS), nonEmpty())),
      }),
    ),
  }),
  z.transform(({ locale, assist, ...overrides }): Messages => {
    const set: Texts = TEXTS[locale];
    const chosen = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<Texts>;
    const base: AssistTexts = ASSIST_TEXTS[locale];
    const own = Object.fromEntries(Object.entries(assist ?? {}).filter(([k, v]) => v !== undefined && k !== 'kiosk')) as Partial<AssistTexts>;
    const assistTexts: AssistTexts = { ...base, ...own, kiosk: { ...base.kiosk, ...(assist?.kiosk ?? {}) } };
    return { locale, ...set, ...chosen, assist: assistTexts };
  }),
);

/** One step of a tone: [frequency in Hz (0: silence), milliseconds]. */
const toneSchema = z.array(z.tuple([intIn(0, 8_000), intIn(10, 2_000)])).check(z.minLength(1), z.maxLength(16));

/**
 * Speech (src/station/core/assist.ts decides what is said; src/devices/speech/ says it): every
 * screen and the instructions, spoken through the board's audio output in the station's locale.
 */
export const speechSchema = z.strictObject({
  /**
   * patron: off until the patron starts it (the speech button, a keypad key held, headphones
   * plugged into a jack with a detect line, the kiosk page's speech button), until they have gone;
   * always: every screen spoken; off: never (no tones either).
   */
  mode: z._default(z.enum(['off', 'patron', 'always']), 'patron'),
  /** true: an audio output that is missing or fails puts the station DOWN; false: /state's errorMessage names it, UP. */
  required: z._default(z.boolean(), false),
  /** The keypad key that, held for holdMs, starts speech (or repeats the screen): any key, one of these, or none. */
  holdKey: z._default(z.enum(['any', 'backspace', 'clear', 'enter', 'none']), 'any'),
  /** How long a key must be held to count as held (the keypad drivers time it). */
  holdMs: durationMs(2_000, 300, 10_000),
  /** Volume in percent of the audio output's full scale: where a patron starts, each key's step, the range. */
  volume: z.prefault(
    z
      .strictObject({
        initial: z._default(intIn(1, 100), 70),
        step: z._default(intIn(1, 50), 10),
        min: z._default(intIn(1, 100), 20),
        max: z._default(intIn(1, 100), 100),
      })
      .check(
        z.superRefine((v, ctx) => {
          if (v.min > v.max) ctx.addIssue({ code: 'custom', path: ['min'], message: `must be at most max (${v.max})`, input: v.min });
          if (v.initial < v.min || v.initial > v.max)
            ctx.addIssue({ code: 'custom', path: ['initial'], message: `must be between min (${v.min}) and max (${v.max})`, input: v.initial });
        }),
      ),
    {},
  ),
  /** Speaking rate, words per minute (espeak-ng's -s; its own default is 175). */
  rateWpm: z._default(intIn(80, 400), 160),
  /**
   * An announcement cut short (a new one, the station's stop) gets SIGTERM; its processes still
   * running this long after get SIGKILL, so a hung espeak-ng or aplay never holds the device.
   */
  killGraceMs: durationMs(1_000, 100, 10_000),
  /** The espeak-ng voice of each locale. */
  voices: z.prefault(z.strictObject({ en: z._default(nonEmpty(), 'en-us'), cs: z._default(nonEmpty(), 'cs') }), {}),
  /** Tones instead of speech: a PIN digit, a deleted digit, clear, Enter, a time-limit warning, a volume step. */
  tones: z.prefault(
    z.strictObject({
      key: z._default(toneSchema, [[880, 70]]),
      erase: z._default(toneSchema, [[660, 70]]),
      clear: z._default(toneSchema, [
        [660, 90],
        [0, 40],
        [440, 160],
      ]),
      enter: z._default(toneSchema, [
        [880, 80],
        [0, 30],
        [1320, 140],
      ]),
      warning: z._default(toneSchema, [
        [1000, 150],
        [0, 100],
        [1000, 150],
        [0, 100],
        [1000, 150],
      ]),
      volume: z._default(toneSchema, [[880, 150]]),
    }),
    {},
  ),
});

export const simulatedHardwareSchema = z.strictObject({
  kind: z.literal('simulated'),
  /** The simulated door springs open this long after its lock is pulsed. */
  doorSpringMs: z._default(intIn(0, 60_000), 50),
  /** Simulated measurements for /state. */
  inputVoltage: z._default(z.number().check(z.minimum(0), z.maximum(100)), 12.1),
  internetSignalStrength: z._default(intIn(0, 100), 100),
  /**
   * A JSON file keeping the simulated doors (and lock outputs) across restarts, with door changes
   * written to it from outside applied while running (src/devices/simulated/state-file.ts); null: none.
   */
  stateFile: z._default(z.nullable(nonEmpty()), null),
  /**
   * A host-mode RFID reader: null (none), or `{}` for the model reader in this process (the demo),
   * or `{ "path": … }` for a reader on a serial device (src/devices/rfid/schema.ts).
   */
  rfidReader: z._default(z.nullable(simulatedRfidReaderSchema), null),
  /**
   * A kiosk touchscreen page (a board profile's `display` of kind "kiosk") as the simulated station's
   * display, keypad, cancel button and help controls, beside its simulated ones; null: none.
   */
  kiosk: z._default(z.nullable(kioskDisplaySchema), null),
});

export const hardwareSchema = z.discriminatedUnion('kind', [simulatedHardwareSchema, boardHardwareSchema]);

/** Where the station keeps state across restarts (the journal, the PIN throttle). */
export const storageSchema = z.strictObject({
  /**
   * The unit's StateDirectory= (/var/lib/pickup-station). null: state is kept in memory only and
   * lost on restart (the demo and fleet mode, whose stations are throwaway).
   */
  directory: z._default(z.nullable(nonEmpty()), '/var/lib/pickup-station'),
});

export const logSchema = z.strictObject({
  level: live(z._default(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info')),
});

/** What the station does about a person's attempts at it (docs/security.md). */
export const securitySchema = z.strictObject({
  /**
   * A USB device the board profile does not name, plugged in (it stays unauthorised: USBGuard).
   * report: a warning, the metric, the technician page; the station stays in service.
   * out-of-service: also st DOWN and customer input refused, the display saying so, until it is removed;
   * and st DOWN while the USB watch cannot see the bus (report: its warning and health only).
   */
  unknownUsb: z._default(z.enum(['report', 'out-of-service']), 'report'),
});

export const configSchema = z.strictObject({
  station: restartsStation(stationSchema),
  server: restartsStation(serverSchema),
  timing: restartsStation(z.prefault(timingSchema, {})),
  locks: restartsStation(z.prefault(lockSchema, {})),
  messages: restartsStation(z.prefault(messagesSchema, {})),
  pin: restartsStation(z.prefault(pinSchema, {})),
  buzzer: restartsStation(z.prefault(buzzerSchema, {})),
  speech: restartsStation(z.prefault(speechSchema, {})),
  hardware: restartsStation(
    z._default(hardwareSchema, {
      kind: 'simulated',
      doorSpringMs: 50,
      inputVoltage: 12.1,
      internetSignalStrength: 100,
      stateFile: null,
      rfidReader: null,
      kiosk: null,
    }),
  ),
  log: z.prefault(logSchema, {}),
  storage: restartsStation(z.prefault(storageSchema, {})),
  /** Library tags on a host-mode reader: sets and the security bit (src/config/rfid.ts). */
  rfid: restartsStation(z.prefault(rfidConfigSchema, {})),
  /** Read by `stationctl portal` from the file each time; the daemon does not use it. */
  portal: live(z.optional(portalConfigSchema)),
  /** The technician port: what it reads per request is live, how it listens is read at start. */
  technician: z.prefault(technicianConfigSchema, {}),
  /** Metrics are set up once at start. */
  metrics: restartsProcess(z.prefault(metricsConfigSchema, {})),
  security: restartsStation(z.prefault(securitySchema, {})),
});

/** The config file as written (defaults optional). */
export type ConfigInput = z.input<typeof configSchema>;
/** The validated config with every default filled in: the whole file (`config.station` is the station's own part, its id and boxes). */
export type Config = z.output<typeof configSchema>;
export type BuzzerPatterns = z.output<typeof buzzerSchema>['patterns'];
export type SpeechConfig = z.output<typeof speechSchema>;
export type ToneSteps = z.output<typeof toneSchema>;
