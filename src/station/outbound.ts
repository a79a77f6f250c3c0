/**
 * The `send` effect carried out: the one outbound protocol event at a time. Builds its body (a
 * fresh eventId; a /state measures the power sources), journals a librarian's or reader's event
 * before it leaves and each attempt and outcome, hands it to the protocol client, keeps the
 * finished event for technicians, and gives the answer back to the core as an input.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { StationHardware } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import { maskIdentifier, type Journal } from '../journal/types.js';
import { NOT_RESENT_STOPPING, type SendOutcome } from '../protocol/client.js';
import type { FirstWriteSender } from '../protocol/first-write.js';
import type { Endpoint, RequestBodies } from '../protocol/types.js';
import type { CoreConfig, Input, OutboundRequest } from './core-types.js';
import { describeAnswer, failureOf, outcomeKindOf } from './event-outcome.js';
import type { EventRecord, PowerReading, RuntimeEvent } from './runtime-types.js';

export interface OutboundContext {
  readonly config: Config;
  readonly core: CoreConfig;
  readonly hardware: StationHardware;
  readonly client: FirstWriteSender;
  readonly journal: Journal;
  readonly log: Logger;
  readonly historySize: number;
  /** Aborted when the station stops: the event in flight ends. */
  readonly abort: AbortSignal;
  /** Aborted when draining begins: the event in flight is not resent. */
  readonly noResend: AbortSignal;
  now(): number;
  running(): boolean;
  dispatch(input: Input): void;
  emit(e: RuntimeEvent): void;
  /** Resolves once the PIN throttle's earlier saves are on disk (a guess goes out only then). */
  saved(): Promise<void>;
}

export class Outbound {
  /** The event being sent, or one settled. */
  sending: Promise<void> = Promise.resolve();
  /** The event whose answer is being dispatched (its id goes into the journal's action record). */
  answering: string | null = null;
  readonly history: EventRecord[] = [];
  lastStateOutcomeAt: number | null = null;
  lastPowerRead: PowerReading | null = null;

  constructor(private readonly c: OutboundContext) {}

  send(request: OutboundRequest): void {
    this.sending = this.sendEvent(request);
  }

  private async body<E extends Endpoint>(request: OutboundRequest & { endpoint: E }): Promise<RequestBodies[E]>;
  private async body(request: OutboundRequest): Promise<RequestBodies[Endpoint]> {
    const station = this.c.config.station.id;
    const event = randomUUID();
    switch (request.endpoint) {
      case 'state': {
        const { power } = this.c.hardware;
        const [inputVoltage, internetSignalStrength] = await Promise.all([
          power.inputVoltage().catch(() => null),
          power.internetSignalStrength().catch(() => null),
        ]);
        this.lastPowerRead = { inputVoltage, internetSignalStrength };
        return {
          station,
          st: request.st,
          errorMessage: request.errorMessage,
          ...(inputVoltage === null ? {} : { inputVoltage }),
          ...(internetSignalStrength === null ? {} : { internetSignalStrength: Math.round(internetSignalStrength) }),
          boxes: request.boxes,
          event,
        };
      }
      case 'item-identify':
        return { station, identifierType: request.identifierType, identifierValue: request.identifierValue, event };
      case 'pin-enter':
        return { station, pin: request.pin, event };
      case 'cancel':
        return { station, event };
    }
  }

  private async sendEvent(request: OutboundRequest): Promise<void> {
    const { c } = this;
    const startedAt = c.now();
    const { journal } = c;
    let outcome: SendOutcome;
    try {
      // A guess goes out only once the failures before it are on disk.
      if (request.endpoint === 'pin-enter') await c.saved();
      const body = await this.body(request);
      const eventId = body.event;
      // A librarian's or reader's event is journaled before it leaves; a /state needs no restart truth.
      const journaled = request.endpoint !== 'state';
      if (request.endpoint !== 'state') {
        const preview = request.endpoint === 'item-identify' ? maskIdentifier(request.identifierValue) : null;
        journal.record({ t: 'event', endpoint: request.endpoint, eventId, preview });
      }
      c.emit({ type: 'event-sent', endpoint: request.endpoint, eventId });
      outcome = await c.client.send(request.endpoint, body, c.abort, {
        noResend: c.noResend,
        ...(journaled ? { onAttempt: (attempt: number) => journal.record({ t: 'attempt', eventId, attempt }) } : {}),
      });
      const cutByStop = outcome.result.kind === 'unanswered' && (outcome.result.reason === NOT_RESENT_STOPPING || c.abort.aborted);
      if (journaled && !cutByStop) {
        // Not when stopping cut it short: the restarted station then reports it as not answered.
        journal.record({ t: 'outcome', eventId, outcome: outcome.result.kind === 'answered' ? describeAnswer(c.core, outcome) : 'unanswered' });
      }
      if (request.endpoint === 'state' && outcome.result.kind === 'answered') {
        journal.record({ t: 'reported', boxes: Object.fromEntries(request.boxes.map((b) => [b.id, b.st])) });
      }
    } catch (e) {
      // A client must not throw; if one does, the event counts as unanswered rather than stalling the queue.
      c.log.error({ endpoint: request.endpoint, error: errorMessage(e) }, 'protocol client failed');
      c.dispatch({ type: 'unanswered', endpoint: request.endpoint, reason: errorMessage(e) });
      return;
    }
    const record: EventRecord = {
      endpoint: outcome.endpoint,
      eventId: outcome.eventId,
      traceIds: outcome.attempts.map((a) => a.traceId),
      attempts: outcome.attempts.length,
      outcome: outcome.result.kind === 'answered' ? describeAnswer(c.core, outcome) : `unanswered: ${outcome.result.reason}`,
      outcomeKind: outcomeKindOf(outcome),
      failure: failureOf(c.core, outcome),
      answerMs: outcome.result.kind === 'answered' ? (outcome.attempts.at(-1)?.ms ?? null) : null,
      startedAt,
      ms: c.now() - startedAt,
    };
    this.history.push(record);
    if (this.history.length > c.historySize) this.history.shift();
    c.emit({ type: 'event-done', record });
    if (request.endpoint === 'state') this.lastStateOutcomeAt = c.now();
    if (!c.running()) return;
    this.answering = outcome.eventId;
    try {
      c.dispatch(
        outcome.result.kind === 'answered'
          ? { type: 'answered', endpoint: request.endpoint, answer: outcome.result.answer }
          : { type: 'unanswered', endpoint: request.endpoint, reason: outcome.result.reason },
      );
    } finally {
      this.answering = null;
    }
  }
}
