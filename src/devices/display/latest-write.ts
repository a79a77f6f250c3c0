/**
 * One write at a time to a display, the latest content winning. A display is slow (a serial
 * line, an I2C bus at 100 kHz) and only its last picture matters: a request while a write runs
 * asks for exactly one more write after it, however many requests arrive meanwhile, never a queue.
 */
export class LatestWrite {
  private owed = false;
  private running: Promise<void> | null = null;

  /**
   * `writeOnce` writes the latest content once; it answers false when there is nothing it can
   * write now (the device is missing or closed), which ends the run until the next request.
   */
  constructor(private readonly writeOnce: () => Promise<boolean>) {}

  /** Resolves once no write is owed any more; rejects with the error of a write that threw. */
  request(): Promise<void> {
    this.owed = true;
    if (this.running) return this.running;
    const run = async (): Promise<void> => {
      // Start on a microtask, so that `running` is assigned before the finally below clears it.
      await Promise.resolve();
      try {
        while (this.owed) {
          this.owed = false;
          if (!(await this.writeOnce())) return;
        }
      } finally {
        this.running = null;
      }
    };
    this.running = run();
    return this.running;
  }

  /** The write under way, if any, settled (its error is the requester's, not the closer's). */
  settled(): Promise<void> {
    return (this.running ?? Promise.resolve()).catch(() => undefined);
  }
}
