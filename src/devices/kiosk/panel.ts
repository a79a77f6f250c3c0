/**
 * A touchscreen as the station's display, PIN keypad, cancel button and help controls at once: four
 * devices (Display, Keypad, PushButton, AssistControls) behind one kiosk page (server.ts). The
 * keypad's keys reach the core exactly as a hardware keypad's do, so masking, Enter, backspace,
 * clear, the idle clear and the PIN throttle are the core's, unchanged; a key held on the page is a
 * held key. The cancel button is shown only while the station offers a cancel, the "more time"
 * button only while a time limit is about to run out (the runtime tells them through
 * PushButton.setAvailable and AssistControls.setMoreTimeOffered).
 *
 * A port that cannot be listened on (taken), or a kiosk secret that cannot be read, is a health
 * problem of the display (the page cannot take keys), retried with the reconnect backoff, not a crash.
 * No socket from systemd (and no development switch) is one too, said once and not retried: the
 * process will not be given one later.
 *
 * So is a page that is not on the screen (page-watch.ts: no event stream with the page's heartbeat
 * for `pageTimeoutMs`), with what the station did about it (browser-restart.ts: the kiosk browser
 * started again, within its limit) — while the page is served, the station starts the browser again.
 */
import type { Logger } from 'pino';
import { DeviceBase, faulty, HEALTHY, Listeners } from '../device-base.js';
import { Backoff, type BackoffOptions } from '../reconnect.js';
import {
  KIOSK_REFUSAL_REASONS,
  type AssistControls,
  type AssistRequest,
  type DeviceHealth,
  type Display,
  type Keypad,
  type KeypadKey,
  type KioskPortView,
  type KioskRefusalReason,
  type PushButton,
  type Unsubscribe,
} from '../types.js';
import { errorMessage } from '../../errors.js';
import { BrowserRestart, type BrowserRestartConfig, type RunCommand } from './browser-restart.js';
import { acquireKioskListener, KioskPortNotHeld, releaseKioskListener, type KioskListener } from './listener.js';
import { kioskHtml, type KioskWords } from './page.js';
import { heartbeatInterval, PageWatch } from './page-watch.js';
import { KioskSecret, type KioskSecretSource } from './secret.js';
import { KioskServer, type KioskLimits } from './server.js';

export interface KioskPanelOptions {
  /** Port on 127.0.0.1 (0: any free one); systemd's socket, when it passed one, wins. */
  readonly port: number;
  /** The cancel button's text. */
  readonly cancelLabel: string;
  /** The station's locale (the page's `lang`) and the page's words in it. */
  readonly lang: string;
  readonly words: KioskWords;
  /** How long a key is held to ask for speech. */
  readonly holdMs: number;
  readonly secret: KioskSecretSource;
  /** Without systemd's socket, bind the port in this process (development only: the demo, tests). */
  readonly ownPort: boolean;
  readonly limits: KioskLimits;
  readonly reconnect: BackoffOptions;
  /** No page on the screen this long is the display's fault. */
  readonly pageTimeoutMs: number;
  /** Starting the kiosk browser again when its page is gone. */
  readonly browser: BrowserRestartConfig;
  /** How the restart command is run (tests of the schedule); a child process by default. */
  readonly runCommand?: RunCommand;
  readonly log: Logger;
}

class KioskDisplay extends DeviceBase implements Display {
  private last: readonly string[] = [];
  constructor(
    name: string,
    private readonly panel: KioskPanel,
  ) {
    super(name, { ok: false, detail: `${name} not started yet` });
  }
  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    this.panel.publish();
    return Promise.resolve();
  }
  lastShown(): readonly string[] {
    return this.last;
  }
  set(health: DeviceHealth): void {
    this.setHealth(health);
  }
  close(): Promise<void> {
    this.clearHealthListeners();
    return this.panel.close();
  }
}

class KioskKeypad extends DeviceBase implements Keypad {
  readonly keys = new Listeners<[KeypadKey]>();
  readonly holds = new Listeners<[KeypadKey]>();
  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.keys.add(listener);
  }
  onHold(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.holds.add(listener);
  }
  close(): Promise<void> {
    this.keys.clear();
    this.holds.clear();
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

class KioskCancelButton extends DeviceBase implements PushButton {
  readonly presses = new Listeners<[]>();
  available = false;
  constructor(
    name: string,
    private readonly panel: KioskPanel,
  ) {
    super(name);
  }
  onPress(listener: () => void): Unsubscribe {
    return this.presses.add(listener);
  }
  setAvailable(available: boolean): void {
    if (available === this.available) return;
    this.available = available;
    this.panel.publish();
  }
  close(): Promise<void> {
    this.presses.clear();
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

/** The page's speech, volume, contrast/text-size and more-time buttons. */
class KioskAssist extends DeviceBase implements AssistControls {
  readonly requests = new Listeners<[AssistRequest]>();
  moreTime = false;
  /** Counts the patrons who have gone (the page resets its settings when it changes). */
  session = 0;
  constructor(
    name: string,
    private readonly panel: KioskPanel,
  ) {
    super(name);
  }
  onRequest(listener: (request: AssistRequest) => void): Unsubscribe {
    return this.requests.add(listener);
  }
  setMoreTimeOffered(offered: boolean): void {
    if (offered === this.moreTime) return;
    this.moreTime = offered;
    this.panel.publish();
  }
  sessionEnded(): void {
    this.session += 1;
    this.panel.publish();
  }
  close(): Promise<void> {
    this.requests.clear();
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

export class KioskPanel implements KioskPortView {
  readonly display: KioskDisplay;
  readonly keypad: KioskKeypad;
  readonly cancelButton: KioskCancelButton;
  readonly assist: KioskAssist;
  private readonly secret: KioskSecret;
  private server: KioskServer | null = null;
  private listener: KioskListener | null = null;
  private readonly retries: Backoff;
  private readonly page: PageWatch;
  private readonly browser: BrowserRestart;
  /** Why the page cannot be served (the port, the secret); null once it is. */
  private serveProblem: string | null = 'not started yet';
  /** Why no page is on the screen (page-watch.ts); null while one is (or not yet judged). */
  private pageProblem: string | null = null;
  /** What the station did about it (browser-restart.ts). */
  private browserNote: string | null = null;
  private everShown = false;
  private watching = false;
  private closed = false;

  constructor(private readonly o: KioskPanelOptions) {
    this.retries = new Backoff(o.reconnect);
    const where = `kiosk page 127.0.0.1:${o.port}`;
    this.display = new KioskDisplay(`display (${where})`, this);
    this.keypad = new KioskKeypad(`keypad (${where})`);
    this.cancelButton = new KioskCancelButton(`cancel button (${where})`, this);
    this.assist = new KioskAssist(`help controls (${where})`, this);
    this.secret = new KioskSecret(o.secret);
    this.page = new PageWatch({
      pageTimeoutMs: o.pageTimeoutMs,
      streams: () => this.counts().streams,
      onChange: (problem) => this.pageChanged(problem),
    });
    this.browser = new BrowserRestart({
      ...o.browser,
      log: o.log,
      onNote: (note) => {
        this.browserNote = note;
        this.judge();
      },
      ...(o.runCommand ? { run: o.runCommand } : {}),
    });
  }

  /** The port the page is served on (after start()). */
  get port(): number {
    return this.listener?.port ?? 0;
  }

  /** Requests the page's port refused since the process started (none before it listens). */
  refusals(): Readonly<Record<KioskRefusalReason, number>> {
    return this.listener?.refusals() ?? (Object.fromEntries(KIOSK_REFUSAL_REASONS.map((r) => [r, 0])) as Record<KioskRefusalReason, number>);
  }

  /** Open connections and streams of the page's server now. */
  counts(): { connections: number; streams: number } {
    return this.server?.counts() ?? { connections: 0, streams: 0 };
  }

  /** Listen (or take systemd's socket) and read the secret; a failure is health (retried with backoff), never a rejection. */
  async start(): Promise<void> {
    if (this.closed) return;
    if (!this.watching) {
      // From the station's start: the kiosk browser starts beside it.
      this.watching = true;
      this.page.start();
      this.browser.start();
    }
    try {
      if (this.listener === null) {
        const { listener, note } = await acquireKioskListener(this.o.port, { ownPort: this.o.ownPort, timeouts: this.o.limits });
        if (this.closed) return void (await releaseKioskListener(listener));
        this.listener = listener;
        if (note) this.o.log.warn({ device: this.display.name }, note);
        this.server = new KioskServer(
          {
            listener,
            secret: this.secret,
            limits: this.o.limits,
            html: kioskHtml(this.o.lang, this.o.words),
            log: this.o.log,
            onKey: (key) => this.keypad.keys.emit(key),
            onHold: (key) => this.keypad.holds.emit(key),
            onCancel: () => this.cancelButton.presses.emit(),
            onAssist: (request) => this.assist.requests.emit(request),
            onHeartbeat: () => this.heartbeat(),
            onHeartbeatRefused: () => this.page.refusedHeartbeat(),
          },
          this.state(),
        );
        this.server.start();
        this.o.log.info(
          { url: `http://127.0.0.1:${listener.port}/`, socketActivated: listener.activated },
          listener.activated ? 'kiosk page on the socket systemd holds' : 'kiosk page listening',
        );
        // The development switch under systemd (it sets INVOCATION_ID): said, since it is a hole there.
        if (!listener.activated && process.env['INVOCATION_ID'] !== undefined)
          this.o.log.warn(
            { device: this.display.name },
            'the kiosk page binds its port itself (developmentOwnPort): while the station restarts another local process could take it; enable pickup-station-kiosk.socket',
          );
      }
      const problem = this.secret.load();
      if (problem !== null) throw new Error(problem);
      this.retries.reset();
      this.serveProblem = null;
      this.judge();
      // Served again with the page still missing: now the browser can be started again.
      if (this.pageProblem !== null) this.browser.pageMissing();
      this.publish();
    } catch (e) {
      if (e instanceof KioskPortNotHeld) {
        this.o.log.error({ device: this.display.name }, e.message);
        this.serveProblem = e.message;
        this.judge();
        return;
      }
      const delay = this.retries.nextDelay();
      const problem = `${this.listener === null ? 'cannot listen' : 'cannot take keys'} (${errorMessage(e)})`;
      if (this.serveProblem !== problem) this.o.log.warn({ device: this.display.name, error: errorMessage(e), retryInMs: delay }, 'kiosk page not ready');
      this.serveProblem = problem;
      this.judge();
      this.retries.retry(() => void this.start());
    }
  }

  /** The display's health: the page not served, else not on the screen (with what was done about it), else healthy. */
  private judge(): void {
    const page = this.pageProblem === null ? null : this.browserNote === null ? this.pageProblem : `${this.pageProblem}; ${this.browserNote}`;
    const problem = this.serveProblem ?? page;
    this.display.set(problem === null ? HEALTHY : faulty(`${this.display.name}: ${problem}`));
  }

  /** A heartbeat with the kiosk secret: counted while the page's event stream is open. */
  private heartbeat(): void {
    if (!this.page.heartbeat() || this.everShown) return;
    this.everShown = true;
    this.o.log.info({ device: this.display.name }, 'kiosk page on the screen');
  }

  private pageChanged(problem: string | null): void {
    const was = this.pageProblem;
    this.pageProblem = problem;
    if (problem === null) {
      this.o.log.info({ device: this.display.name }, 'kiosk page on the screen again');
      this.browser.pageShown();
    } else if (was === null) {
      this.o.log.warn({ device: this.display.name, problem }, 'kiosk page not on the screen');
    }
    this.judge();
    if (problem !== null && this.serveProblem === null) this.browser.pageMissing();
  }

  private state() {
    return {
      lines: this.display.lastShown(),
      cancel: this.cancelButton.available,
      cancelLabel: this.o.cancelLabel,
      moreTime: this.assist.moreTime,
      session: this.assist.session,
      lang: this.o.lang,
      words: this.o.words,
      holdMs: this.o.holdMs,
      heartbeatMs: heartbeatInterval(this.o.pageTimeoutMs),
    };
  }

  publish(): void {
    this.server?.update(this.state());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.retries.cancel();
    this.page.close();
    this.browser.close();
    await this.server?.close();
    if (this.listener) await releaseKioskListener(this.listener);
  }
}
