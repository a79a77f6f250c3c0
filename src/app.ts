/**
 * Assembles one station from a validated config: hardware -> protocol client -> runtime.
 * The daemon, the demo, the integration tests and the fleet all start stations through here,
 * so tests drive the same code path as the field.
 */
import type { Logger } from 'pino';
import type { Config } from './config/schema.js';
import { createHardware } from './devices/factory.js';
import type { StationHardware } from './devices/types.js';
import { ACCEPT_LANGUAGE } from './config/messages.js';
import { openJournal, type Journal } from './journal/index.js';
import { HttpProtocolClient, type HttpAgents, type ProtocolSender } from './protocol/client.js';
import { StationRuntime, type DrainResult } from './station/runtime.js';
import { pinThrottleStoreFor } from './storage/pin-throttle-store.js';
import { USER_AGENT } from './version.js';

/** One started station: what startStation() returns and the supervisor holds until it stops it. */
export interface RunningStation {
  readonly config: Config;
  readonly hardware: StationHardware;
  readonly runtime: StationRuntime;
  /** Graceful stop, first half (StationRuntime.drain); stop() must follow. */
  drain(limitMs: number): Promise<DrainResult>;
  /** Stop the runtime (locks OFF), release the hardware, close the journal. Idempotent. */
  stop(): Promise<void>;
}

export interface StationOptions {
  readonly config: Config;
  readonly password: string;
  readonly log: Logger;
  /** Defaults to createHardware(config). */
  readonly hardware?: StationHardware;
  /** Defaults to the HTTP client of the config's server. */
  readonly client?: ProtocolSender;
  /** HTTP agents for the default client (a fleet shares a bounded pool). */
  readonly agent?: HttpAgents;
  /** Defaults to the journal of `storage.directory` (a file there, or memory when null). */
  readonly journal?: Journal;
  /**
   * Ends the start at its next step (a supervisor stopping, a swap past its limit): what it had
   * opened is stopped again (locks OFF, hardware released) and the start rejects with StartAborted.
   */
  readonly signal?: AbortSignal;
}

/** A start ended by its signal; everything it had opened was stopped before it was thrown. */
export class StartAborted extends Error {
  override readonly name = 'StartAborted';
  constructor(step: string) {
    super(`the station's start was aborted ${step}`);
  }
}

export function createClient(config: Config, password: string, log: Logger, agent?: HttpAgents): HttpProtocolClient {
  return new HttpProtocolClient({
    baseUrl: config.server.baseUrl,
    version: config.server.version,
    stationId: config.station.id,
    password,
    answerTimeoutMs: config.server.answerTimeoutMs,
    attempts: config.server.attempts,
    // The station's own language unless the config names one.
    acceptLanguage: config.server.acceptLanguage ?? ACCEPT_LANGUAGE[config.messages.locale],
    caFile: config.server.caFile,
    maxAnswerBytes: config.server.maxAnswerBytes,
    userAgent: USER_AGENT,
    log,
    ...(agent ? { agent } : {}),
  });
}

/** Build and start a station. Locks are OFF before anything else happens. */
export async function startStation(opts: StationOptions): Promise<RunningStation> {
  const { config, log, signal } = opts;
  const hardware = opts.hardware ?? (await createHardware(config));
  const client = opts.client ?? createClient(config, opts.password, log, opts.agent);
  const journal = opts.journal ?? openJournal(config.storage.directory);
  log.info({ journal: journal.location }, 'journal opened');
  const runtime = new StationRuntime({ config, hardware, client, log, journal, pinThrottleStore: pinThrottleStoreFor(config.storage.directory) });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        await runtime.stop();
        await hardware.close();
      } finally {
        await journal.close();
      }
    })());
  const notAborted = (step: string): void => {
    if (signal?.aborted === true) throw new StartAborted(step);
  };
  try {
    notAborted('once its hardware was open');
    await runtime.start();
    notAborted('once it had started');
  } catch (e) {
    await stop();
    throw e;
  }
  return { config, hardware, runtime, drain: (limitMs) => runtime.drain(limitMs), stop };
}
