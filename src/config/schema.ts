/**
 * The one config schema (zod). Every key has its default here; README.md documents each.
 * Protocol defaults are the spec's: answer timeout 20 s, 3 attempts, heartbeat at most every 30 s.
 *
 * Validation reports every problem at once with its path and the bad value (see load.ts).
 */
import { z } from 'zod';
import { boardHardwareSchema } from '../devices/board-config.js';
import { debugConfigSchema } from '../debug/config.js';
import { HARD_MAX_PULSE_MS } from '../devices/types.js';
import { portalConfigSchema } from '../portal/config.js';

const uuidV4Lower = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'must be a lowercase UUIDv4');
const durationMs = (dflt: number, min = 1, max = 24 * 3600_000) => z.number().int().min(min).max(max).default(dflt);

export const boxSchema = z.strictObject({
  /** 1-based position in the station, as printed on the door; boards map numbers to lines. */
  number: z.number().int().min(1).max(999),
  /** The boxId (UUIDv4, lowercase) the library system knows. */
  id: uuidV4Lower,
});

export const stationSchema = z
  .strictObject({
    id: uuidV4Lower,
    /** File holding the station password; default: $CREDENTIALS_DIRECTORY/station-password. */
    passwordFile: z.string().min(1).optional(),
    boxes: z.array(boxSchema).min(1).max(999),
  })
  .superRefine((s, ctx) => {
    const seenIds = new Set<string>();
    const seenNumbers = new Set<number>();
    s.boxes.forEach((b, i) => {
      if (seenIds.has(b.id)) ctx.addIssue({ code: 'custom', path: ['boxes', i, 'id'], message: 'duplicate box id', input: b.id });
      if (seenNumbers.has(b.number))
        ctx.addIssue({ code: 'custom', path: ['boxes', i, 'number'], message: 'duplicate box number', input: b.number });
      seenIds.add(b.id);
      seenNumbers.add(b.number);
    });
  });

export const serverSchema = z.strictObject({
  /** Scheme, domain and path up to (not including) the version segment. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** The versioned path segment appended to baseUrl. */
  version: z.string().regex(/^[A-Za-z0-9._-]+$/).default('v2'),
  /** Wait this long for an answer before resending (spec: 20 s). */
  answerTimeoutMs: durationMs(20_000, 10, 600_000),
  /** Attempts per event, the first included (spec: 3 = 2 resends). */
  attempts: z.number().int().min(1).max(10).default(3),
  /** Sent as Accept-Language when set (e.g. "cs-CZ, cs;q=0.9"). */
  acceptLanguage: z.string().min(1).nullable().default(null),
  /** Extra CA bundle file for a library server with a private CA. */
  caFile: z.string().min(1).nullable().default(null),
  /**
   * Largest answer body read; a longer one is abandoned mid-stream and counts as unanswered. The
   * protocol's answers are a few hundred bytes; 64 KiB leaves room for long display texts.
   */
  maxAnswerBytes: z.number().int().min(1_024).max(16_777_216).default(65_536),
});

export const timingSchema = z.strictObject({
  /** Longest time between two /state requests (spec default 30 s). */
  heartbeatIntervalMs: durationMs(30_000, 100, 600_000),
  /** A typed PIN is cleared after this long without a key. */
  pinIdleMs: durationMs(20_000),
  /** Temporary messages (refusals, errors) stay this long before the prompt returns. */
  messageMs: durationMs(5_000),
  /** The same identifier read again within this window is a scanner double-read and is dropped. */
  duplicateScanWindowMs: durationMs(1_500, 0),
  /** A pulsed box whose door does not report OPEN within this time is reported as not opened. */
  doorOpenTimeoutMs: durationMs(4_000),
  /**
   * A graceful stop (SIGTERM) finishes what is in flight for at most this long, then drives every
   * lock OFF and exits. Must stay below the unit's TimeoutStopSec= (test/systemd/unit.test.ts).
   */
  drainLimitMs: durationMs(30_000, 0, 600_000),
});

export const lockSchema = z.strictObject({
  /** How long a lock solenoid is energized per opening. */
  pulseMs: z.number().int().min(10).max(HARD_MAX_PULSE_MS).default(600),
});

/** Texts the station shows on its own (server texts come with each command). */
export const messagesSchema = z.strictObject({
  starting: z.array(z.string()).default(['Starting...']),
  prompt: z.array(z.string()).default(['Scan an item', 'or enter your PIN']),
  pinEntry: z.string().default('PIN: {mask}'),
  pinLength: z.array(z.string()).default(['The PIN has 6 digits']),
  busy: z.array(z.string()).default(['Please wait...']),
  boxOpen: z.array(z.string()).default(['Please close the box first']),
  cannotCancel: z.array(z.string()).default(['This cannot be cancelled']),
  unreadable: z.array(z.string()).default(['Code not readable', 'please scan again']),
  serverError: z.array(z.string()).default(['Something went wrong', 'please try again']),
  stationOff: z.array(z.string()).default(['Station out of service', 'sorry for the inconvenience']),
  disabled: z.array(z.string()).default(['Station not available']),
  /** Shown while the station stops (drain): new input is refused. */
  restarting: z.array(z.string()).default(['Station restarting', 'please wait a moment']),
  /** After a restart that cut a deposit or pickup short before its box opened. */
  restartedNotOpened: z.array(z.string()).default(['The station restarted', 'please scan or enter your PIN again']),
  /** After a restart that cut a deposit or pickup short once its box had opened. */
  restartedOpened: z.array(z.string()).default(['The station restarted', 'please close the box when done']),
});

export const simulatedHardwareSchema = z.strictObject({
  kind: z.literal('simulated'),
  /** The simulated door springs open this long after its lock is pulsed. */
  doorSpringMs: z.number().int().min(0).max(60_000).default(50),
  /** Simulated measurements for /state. */
  inputVoltage: z.number().min(0).max(100).default(12.1),
  internetSignalStrength: z.number().int().min(0).max(100).default(100),
  /**
   * A JSON file keeping the simulated doors (and lock outputs) across restarts, with door changes
   * written to it from outside applied while running (src/devices/sim/state-file.ts); null: none.
   */
  stateFile: z.string().min(1).nullable().default(null),
});

export const hardwareSchema = z.discriminatedUnion('kind', [simulatedHardwareSchema, boardHardwareSchema]);

/** Where the station keeps state across restarts (the journal, the PIN throttle). */
export const storageSchema = z.strictObject({
  /**
   * The unit's StateDirectory= (/var/lib/pickup-station). null: state is kept in memory only and
   * lost on restart (the demo and fleet mode, whose stations are throwaway).
   */
  directory: z.string().min(1).nullable().default('/var/lib/pickup-station'),
});

export const logSchema = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const configSchema = z.strictObject({
  station: stationSchema,
  server: serverSchema,
  timing: timingSchema.prefault({}),
  locks: lockSchema.prefault({}),
  messages: messagesSchema.prefault({}),
  hardware: hardwareSchema.default({ kind: 'simulated', doorSpringMs: 50, inputVoltage: 12.1, internetSignalStrength: 100, stateFile: null }),
  log: logSchema.prefault({}),
  storage: storageSchema.prefault({}),
  portal: portalConfigSchema.optional(),
  debug: debugConfigSchema.prefault({}),
});

/** The config file as written (defaults optional). */
export type ConfigInput = z.input<typeof configSchema>;
/** The validated config with every default filled in. */
export type StationConfig = z.output<typeof configSchema>;
export type Messages = z.output<typeof messagesSchema>;
