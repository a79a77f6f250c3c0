/**
 * The one way a long job runs on the supervised station: a reload, a technician's self-test. The
 * supervisor's stop is not a job: it closes the runner (below) and never waits its turn.
 *
 * Invariants:
 * - One job at a time: a job holds the slot from its start until it settles (resolved or thrown;
 *   a throw frees the slot too, and reaches only that job's callers).
 * - Every job is handed an AbortSignal. It is aborted when the runner closes; a job ends soon
 *   after (every wait inside a job takes the signal and is bounded by a config limit), and the
 *   runner never waits for it longer than the grace its close() is given.
 * - Priorities: `close()` first — it aborts the running job and refuses every waiting and later
 *   request; then queued jobs (`enqueue`, a reload), in order of asking; a job that must start
 *   now or not at all (`startNow`, a technician's self-test: the person at the page is answered
 *   at once) never waits and never overtakes — refused ('busy') while anything runs or waits.
 * - A job asked by name while one of that name is queued and not yet started joins it: every
 *   caller gets the outcome of a run that started after it asked (for a reload: one that read the
 *   file after the request), and none is dropped.
 * - A job must not ask the runner for another job: it would wait for itself. Nothing here detects
 *   it; the supervisor's jobs call only the station and the config loader.
 */
import { settlesWithin } from '../time.js';
import { SupervisorRefusal } from './refusal.js';

type Job<T> = (signal: AbortSignal) => Promise<T>;

interface Waiting {
  readonly name: string;
  readonly job: Job<unknown>;
  /** The promise every caller asking for this name gets until it starts. */
  readonly outcome: Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (e: unknown) => void;
}

export class ExclusiveRunner {
  private running: { readonly name: string; readonly abort: AbortController; readonly settled: Promise<unknown> } | null = null;
  private readonly queue: Waiting[] = [];
  private closedBecause: string | null = null;

  /** The job running now, or null. */
  get busyWith(): string | null {
    return this.running?.name ?? null;
  }

  /** Whether a job of this name runs now. */
  runs(name: string): boolean {
    return this.running?.name === name;
  }

  /** Run `job` now; refused ('busy') while another runs or waits, or once the runner is closed. */
  startNow<T>(name: string, job: Job<T>): Promise<T> {
    if (this.closedBecause !== null) return Promise.reject(new SupervisorRefusal('busy', this.closedBecause));
    const other = this.running?.name ?? this.queue[0]?.name;
    if (other !== undefined) return Promise.reject(new SupervisorRefusal('busy', `${other} in progress`));
    return this.start(name, job);
  }

  /**
   * Run `job` once the jobs before it have settled; asked while one of this name waits, the
   * caller joins that one. Refused ('busy') once the runner is closed, waiting or not.
   */
  enqueue<T>(name: string, job: Job<T>): Promise<T> {
    if (this.closedBecause !== null) return Promise.reject(new SupervisorRefusal('busy', this.closedBecause));
    const joined = this.queue.find((w) => w.name === name);
    if (joined !== undefined) return joined.outcome as Promise<T>;
    if (this.running === null) return this.start(name, job);
    let resolve!: (value: unknown) => void;
    let reject!: (e: unknown) => void;
    const outcome = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.queue.push({ name, job, outcome, resolve, reject });
    return outcome as Promise<T>;
  }

  /**
   * Abort the running job and refuse the waiting ones and every later request (with `reason`).
   * Resolves true once the running job has settled, false if it has not within `graceMs`.
   */
  async close(reason: string, graceMs: number): Promise<boolean> {
    this.closedBecause ??= reason;
    for (const w of this.queue.splice(0)) w.reject(new SupervisorRefusal('busy', this.closedBecause));
    const running = this.running;
    if (running === null) return true;
    running.abort.abort();
    return settlesWithin(running.settled, graceMs);
  }

  private start<T>(name: string, job: Job<T>): Promise<T> {
    const abort = new AbortController();
    // Started on the next microtask: the caller's own synchronous code ends before the job begins.
    const run = Promise.resolve().then(() => job(abort.signal));
    const mine = { name, abort, settled: run };
    this.running = mine;
    const next = (): void => {
      if (this.running === mine) this.running = null;
      // The next one starts in this same tick: no request slips in between.
      const waiting = this.queue.shift();
      if (waiting !== undefined) this.start(waiting.name, waiting.job).then(waiting.resolve, waiting.reject);
    };
    run.then(next, next);
    return run;
  }
}
