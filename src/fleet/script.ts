/**
 * One scripted person per virtual station: deposits, pickups and cancelled deposits in turn, one
 * action at a time, the next starting a jittered interval after the previous one ended. Each
 * action goes through the simulated hardware exactly as a person would (scan, keys, doors, cancel
 * button) and waits on what the station shows it, never on timers of its own beyond `holdMs`.
 */
import type { RunningStation } from '../app.js';
import type { SimulatedHardware } from '../devices/simulated/hardware.js';
import type { SimulatedStation } from '../reference-server/index.js';
import type { Endpoint } from '../protocol/types.js';
import type { Supply } from './supply.js';
import { WaitAbortedError, nextEvent, settledIn, until } from './wait.js';
import { sleep } from '../time.js';

export type ActionKind = 'deposit' | 'pickup' | 'cancel';
export const ACTION_KINDS: readonly ActionKind[] = ['deposit', 'pickup', 'cancel'];

export interface ActionCounts {
  started: number;
  /** Boxes opened and closed again (a cancel: the deposit cancelled too). */
  done: number;
  /** The server answered with an exception (or nothing to offer: no item or PIN left). */
  refused: number;
  /** Anything else: a wait ran out, the station was busy, unanswered. */
  failed: number;
}

export type ScriptStats = Record<ActionKind, ActionCounts>;

export const emptyStats = (): ScriptStats => ({
  deposit: { started: 0, done: 0, refused: 0, failed: 0 },
  pickup: { started: 0, done: 0, refused: 0, failed: 0 },
  cancel: { started: 0, done: 0, refused: 0, failed: 0 },
});

export interface ScriptOptions {
  /** Actions per minute; 0: none. */
  readonly ratePerMin: number;
  /** How long the person keeps a door open. */
  readonly holdMs: number;
  /** Bound of every wait: longer than the station's own worst case (all attempts unanswered). */
  readonly waitMs: number;
  readonly random?: () => number;
}

export class StationScript {
  readonly stats = emptyStats();
  private timer: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  private turn: number;
  private running: Promise<void> = Promise.resolve();
  private readonly random: () => number;

  constructor(
    private readonly station: RunningStation,
    private readonly sim: SimulatedHardware,
    private readonly def: SimulatedStation,
    private readonly supply: Supply,
    private readonly o: ScriptOptions,
  ) {
    this.random = o.random ?? Math.random;
    this.turn = Math.floor(this.random() * ACTION_KINDS.length);
  }

  start(): void {
    if (this.o.ratePerMin <= 0) return;
    // The first action anywhere in the first interval, so stations do not act in lockstep.
    this.schedule(this.random() * this.interval());
  }

  /** No new action; the one in progress is abandoned at its next wait. */
  async stop(): Promise<void> {
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private interval(): number {
    return 60_000 / this.o.ratePerMin;
  }

  private schedule(ms: number): void {
    if (this.abort.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const kind = ACTION_KINDS[this.turn++ % ACTION_KINDS.length] ?? 'deposit';
      this.running = this.act(kind).finally(() => this.schedule(this.interval() * (0.5 + this.random())));
    }, ms);
  }

  private async act(kind: ActionKind): Promise<void> {
    const counts = this.stats[kind];
    counts.started++;
    try {
      counts[await this.perform(kind)]++;
    } catch (e) {
      if (e instanceof WaitAbortedError) {
        counts.started--;
        return;
      }
      counts.failed++;
      this.closeAllDoors();
    }
  }

  private async perform(kind: ActionKind): Promise<'done' | 'refused' | 'failed'> {
    const { runtime } = this.station;
    const signal = this.abort.signal;
    const value = kind === 'pickup' ? await this.supply.pickup(this.def) : await this.supply.deposit(this.def);
    if (value === null) return 'refused';
    // A heartbeat may be in flight; a person waits for the prompt. The input follows on the same
    // microtask run as the check, so no timer (a heartbeat) can come in between.
    await until(runtime, settledIn(runtime, 'idle'), 'station idle', this.o.waitMs, signal);
    const endpoint: Endpoint = kind === 'pickup' ? 'pin-enter' : 'item-identify';
    const answered = this.answerOf(endpoint);
    if (kind === 'pickup') this.sim.typePin(value);
    else this.sim.scanBarcode(value);
    const outcome = await answered;
    if (outcome !== 'box-open') return outcome.startsWith('exception') ? 'refused' : 'failed';
    await until(runtime, settledIn(runtime, 'closing'), 'doors reported open', this.o.waitMs, signal);
    if (kind === 'cancel') {
      const cancelled = this.answerOf('cancel');
      this.sim.pressCancel();
      if ((await cancelled) !== 'wait-for-closing') return 'failed';
      await until(runtime, settledIn(runtime, 'closing'), 'cancel answered', this.o.waitMs, signal);
    }
    await sleepOrAbort(this.o.holdMs, signal);
    this.closeAllDoors();
    await until(runtime, settledIn(runtime, 'idle'), 'doors reported closed', this.o.waitMs, signal);
    return 'done';
  }

  /** The outcome text of the next finished event to `endpoint` (subscribed now, before the input). */
  private answerOf(endpoint: Endpoint): Promise<string> {
    return nextEvent(
      this.station.runtime,
      (e) => (e.type === 'event-done' && e.record.endpoint === endpoint ? e.record.outcome : undefined),
      `answer to /${endpoint}`,
      this.o.waitMs,
      this.abort.signal,
    );
  }

  private closeAllDoors(): void {
    this.def.boxes.forEach((_, i) => {
      if (this.sim.doors.peek(i + 1) === 'OPEN') this.sim.closeDoor(i + 1);
    });
  }
}

/** Wait, or end with WaitAbortedError once `signal` aborts. */
async function sleepOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  if (!signal.aborted) await sleep(ms, signal);
  if (signal.aborted) throw new WaitAbortedError();
}
