/**
 * The kiosk browser started again when its page is gone from the screen (docs/decisions/0138): a
 * renderer or network service that died leaves cage and Chromium running on a grey or sad screen,
 * which systemd's Restart= never sees. The station, which sees the page go (page-watch.ts), runs
 * one command — in the field `systemctl restart pickup-station-kiosk.service`, the one action
 * polkit allows the station's user (systemd/polkit-kiosk.rules).
 *
 * | state                                  | event                          | result                                   |
 * |----------------------------------------|--------------------------------|------------------------------------------|
 * | a browser start is young (< startMs)   | page missing                   | wait until it is startMs old             |
 * | the page missing, the start old enough | (either)                       | restart (one of `restartLimit` in a row) |
 * | `restartLimit` restarts in a row       | page still missing             | no more: the note says so, the fault stays |
 * | any                                    | page shown                     | the count starts again, no note          |
 *
 * A browser start is the station's own start (the kiosk unit starts beside it) or the end of the
 * last restart command. A command that fails (systemd's start limit, polkit's refusal, a time-out)
 * counts as a start. The note (or null) goes into the display's health via `onNote`.
 */
import { execFile } from 'node:child_process';
import type { Logger } from 'pino';

export interface BrowserRestartConfig {
  readonly restartCommand: readonly string[] | null;
  readonly startMs: number;
  readonly restartLimit: number;
  readonly commandTimeoutMs: number;
}

/** How a command ended: null when it exited 0, else why not (its stderr, or the error; cut to one line here). */
export type RunCommand = (argv: readonly string[], timeoutMs: number) => Promise<string | null>;

export interface BrowserRestartOptions extends BrowserRestartConfig {
  readonly log: Logger;
  readonly onNote: (note: string | null) => void;
  readonly run?: RunCommand;
}

/** At most this much of a failed command's words, one line, printable. */
const MAX_WHY = 200;

export function oneLine(text: string): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return first
    .replace(/[^\x20-\x7e]/g, '?')
    .trim()
    .slice(0, MAX_WHY);
}

const runCommand: RunCommand = (argv, timeoutMs) =>
  new Promise((resolve) => {
    execFile(argv[0] ?? '', argv.slice(1), { timeout: timeoutMs, encoding: 'utf8' }, (err, _stdout, stderr) => {
      if (err === null) return resolve(null);
      const killed = err.killed ? `no end within ${timeoutMs} ms` : null;
      resolve(killed ?? (stderr.trim() || err.message));
    });
  });

export class BrowserRestart {
  private timer: NodeJS.Timeout | null = null;
  /** The browser's last start is at least startMs old. */
  private settled = false;
  private missing = false;
  private running = false;
  private closed = false;
  private attempts = 0;
  private gaveUp = false;
  private readonly run: RunCommand;

  constructor(private readonly o: BrowserRestartOptions) {
    this.run = o.run ?? runCommand;
  }

  /** Restarts done in a row (none since the page was last shown). */
  get restarts(): number {
    return this.attempts;
  }

  /** The station starts: the kiosk browser, started beside it, gets its startMs. */
  start(): void {
    this.settle();
  }

  /** The page is not on the screen (page-watch.ts raised its problem). */
  pageMissing(): void {
    this.missing = true;
    this.next();
  }

  /** The page is on the screen again. */
  pageShown(): void {
    this.missing = false;
    if (this.attempts > 0) this.o.log.info({ restarts: this.attempts }, 'kiosk page on the screen again after the kiosk browser was started again');
    this.attempts = 0;
    this.gaveUp = false;
    this.o.onNote(null);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private settle(): void {
    this.settled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.settled = true;
      this.next();
    }, this.o.startMs);
  }

  private next(): void {
    const command = this.o.restartCommand;
    if (this.closed || !this.missing || !this.settled || this.running || command === null) return;
    if (this.attempts >= this.o.restartLimit) return this.giveUp();
    this.running = true;
    this.attempts += 1;
    const of = `${this.attempts} of ${this.o.restartLimit}`;
    this.o.log.warn(
      { attempt: this.attempts, limit: this.o.restartLimit, command: command.join(' ') },
      'kiosk page not on the screen: starting the kiosk browser again',
    );
    void this.run(command, this.o.commandTimeoutMs).then((result) => {
      const failed = result === null ? null : oneLine(result) || 'failed';
      this.running = false;
      if (this.closed) return;
      this.settle();
      if (failed === null) this.o.log.info({ attempt: this.attempts }, 'kiosk browser started again');
      else this.o.log.error({ attempt: this.attempts, error: failed }, 'starting the kiosk browser again failed');
      // The page came back while the command ran: nothing to say.
      if (!this.missing) return;
      this.o.onNote(failed === null ? `the kiosk browser was started again (${of})` : `starting the kiosk browser again failed (${of}): ${failed}`);
    });
  }

  private giveUp(): void {
    if (this.gaveUp) return;
    this.gaveUp = true;
    const note =
      this.o.restartLimit === 0
        ? 'the kiosk browser is not started again (browser.restartLimit 0)'
        : `the kiosk browser was started again ${this.attempts} times without the page coming back: no more restarts (journalctl -u pickup-station-kiosk)`;
    this.o.log.error({ restarts: this.attempts }, `kiosk page not on the screen: ${note}; the display fault stays until the page is shown`);
    this.o.onNote(note);
  }
}
