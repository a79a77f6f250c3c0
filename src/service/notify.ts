/**
 * sd_notify(3) from Node, without a native module.
 *
 * The protocol is one datagram of `KEY=VALUE` lines to the AF_UNIX SOCK_DGRAM socket named by
 * $NOTIFY_SOCKET. Node has no unix datagram sockets, and the packages that add them (unix-dgram,
 * sd-notify) are native addons: one more thing to cross-build for arm64, and one that may fail to
 * install on a board without a compiler. So we run `systemd-notify` — shipped with systemd itself,
 * on every Raspberry Pi OS image — as a child process:
 *
 * - The sender is the child, not the main PID, so the unit needs `NotifyAccess=all`.
 * - systemd attributes a message by the sender's PID; a sender that exits before PID 1 reads the
 *   datagram used to lose it. systemd-notify (since 246, so Bookworm's 252 and Trixie's 257) sends
 *   BARRIER=1 after the message and waits until PID 1 has processed both, so the race is closed;
 *   we never pass --no-block. (`--exec`/`--fork`, which keep the sender alive, only exist from 254.)
 * - READY=1 carries `--pid=<our pid>` (MAINPID=) so the main process is named explicitly.
 *
 * Contract (zigbee2mqtt-style soft failure): without $NOTIFY_SOCKET every call is a no-op; a
 * failed send (tool missing, socket gone, timeout) logs one warning — the first — and later ones
 * at debug level; nothing here ever throws or rejects. Messages go out one at a time, in order.
 */
import { execFile } from 'node:child_process';
import type { Logger } from '../log.js';
import { settlesWithin } from '../time.js';

export interface SdNotifier {
  /** False when there is no $NOTIFY_SOCKET (not started by systemd as Type=notify). */
  readonly enabled: boolean;
  /**
   * Queue one message (`KEY=VALUE` assignments, e.g. 'READY=1', 'STATUS=up'). Resolves true once
   * delivered, false if disabled, dropped or failed. Never rejects.
   */
  notify(...assignments: string[]): Promise<boolean>;
  /** Number of messages queued or being sent right now. */
  pending(): number;
  /** Resolves once everything queued so far is sent (or failed), or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

export interface SdNotifierOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  /** The tool to run; default `systemd-notify` found on PATH (/usr/bin in the unit). */
  readonly command?: string;
  /** Our PID, sent as MAINPID= with READY=1. */
  readonly pid?: number;
  /** A send that takes longer is killed and counts as failed (systemd-notify's own barrier wait is 5 s). */
  readonly timeoutMs?: number;
}

const DISABLED: SdNotifier = {
  enabled: false,
  notify: () => Promise.resolve(false),
  pending: () => 0,
  flush: () => Promise.resolve(),
};

/** Create the notifier for this process's environment. */
export function createSdNotifier(opts: SdNotifierOptions): SdNotifier {
  const socket = opts.env['NOTIFY_SOCKET'];
  if (socket === undefined || socket === '') return DISABLED;
  return new ToolNotifier(opts);
}

class ToolNotifier implements SdNotifier {
  readonly enabled = true;
  private queue: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private warned = false;

  constructor(private readonly opts: SdNotifierOptions) {}

  notify(...assignments: string[]): Promise<boolean> {
    const bad = assignments.find((a) => !/^[A-Z_]+=/.test(a) || a.includes('\n'));
    if (bad !== undefined || assignments.length === 0) {
      this.failed(`not a KEY=VALUE line: ${JSON.stringify(bad ?? '')}`);
      return Promise.resolve(false);
    }
    this.inFlight++;
    const sent = this.queue.then(() => this.send(assignments)).finally(() => this.inFlight--);
    this.queue = sent;
    return sent;
  }

  pending(): number {
    return this.inFlight;
  }

  async flush(timeoutMs: number): Promise<void> {
    await settlesWithin(this.queue, timeoutMs);
  }

  private send(assignments: readonly string[]): Promise<boolean> {
    const { command = 'systemd-notify', pid, timeoutMs = 10_000 } = this.opts;
    const args = assignments.includes('READY=1') && pid !== undefined ? [`--pid=${pid}`, ...assignments] : [...assignments];
    return new Promise((resolve) => {
      execFile(command, args, { env: this.opts.env, timeout: timeoutMs, encoding: 'utf8' }, (err, _stdout, stderr) => {
        if (err) {
          const detail = stderr.trim() || err.message;
          this.failed(`${command} ${assignments.join(' ')}: ${detail}`);
          resolve(false);
        } else {
          resolve(true);
        }
      });
    });
  }

  private failed(detail: string): void {
    if (this.warned) {
      this.opts.log.debug({ detail }, 'sd_notify failed again');
      return;
    }
    this.warned = true;
    this.opts.log.warn({ detail }, 'sd_notify failed: systemd may not see readiness or watchdog pings (further failures at debug level)');
  }
}
