/**
 * One run at a time, and nothing asked for is dropped: a request while a run is in progress joins
 * the single run queued behind it, which starts once the current one has settled. Every request
 * gets the outcome of a run that *started after it was made* — for a reload, one that read the
 * file after the request, so the file's latest content wins and no request is answered by a run
 * that could not have seen the change it was asked for.
 */
export class Coalescing<T> {
  private running: Promise<T> | null = null;
  private queued: Promise<T> | null = null;

  constructor(private readonly task: () => Promise<T>) {}

  /** Whether a run is in progress (a queued one counts once it starts). */
  get busy(): boolean {
    return this.running !== null;
  }

  request(): Promise<T> {
    if (this.queued !== null) return this.queued;
    const current = this.running;
    if (current === null) return this.start();
    const settled = (): void => undefined;
    this.queued = current.then(settled, settled).then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<T> {
    const run = Promise.resolve().then(this.task);
    this.running = run;
    const clear = (): void => {
      if (this.running === run) this.running = null;
    };
    run.then(clear, clear);
    return run;
  }
}
