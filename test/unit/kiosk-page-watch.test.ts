/**
 * Whether the kiosk page is on the screen (src/devices/kiosk/page-watch.ts) and the kiosk browser
 * started again when it is not (src/devices/kiosk/browser-restart.ts), on fake timers: the page's
 * heartbeat counted only while its event stream is open, the fault after `pageTimeoutMs` with why,
 * heartbeats without the secret named once; the browser started again only once its start is
 * `startMs` old, at most `restartLimit` times in a row, then never again (the fault stays), the
 * count starting again once the page is shown; a failing command counted and said.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserRestart, oneLine, type RunCommand } from '../../src/devices/kiosk/browser-restart.js';
import { heartbeatInterval, PageWatch } from '../../src/devices/kiosk/page-watch.js';
import { captureLog } from '../support/capture-log.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function watch(pageTimeoutMs = 20_000) {
  let streams = 0;
  const changes: (string | null)[] = [];
  const w = new PageWatch({ pageTimeoutMs, streams: () => streams, onChange: (p) => changes.push(p) });
  return { w, changes, setStreams: (n: number) => (streams = n) };
}

describe('PageWatch', () => {
  it('four heartbeats in each timeout', () => {
    expect(heartbeatInterval(20_000)).toBe(5_000);
    expect(heartbeatInterval(1_000)).toBe(250);
  });

  it('no page from the start: the fault after pageTimeoutMs, not before; the first heartbeat with a stream ends it', () => {
    const { w, changes, setStreams } = watch();
    w.start();
    vi.advanceTimersByTime(19_999);
    expect(w.problem).toBeNull();
    vi.advanceTimersByTime(1);
    expect(w.problem).toBe('no page on the screen for 20 s: the kiosk browser has not connected');
    setStreams(1);
    expect(w.heartbeat()).toBe(true);
    expect(w.problem).toBeNull();
    expect(changes).toEqual(['no page on the screen for 20 s: the kiosk browser has not connected', null]);
  });

  it('heartbeats keep it shown; a heartbeat without an open event stream does not count', () => {
    const { w, changes, setStreams } = watch();
    w.start();
    setStreams(1);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(15_000);
      expect(w.heartbeat()).toBe(true);
    }
    expect(changes).toEqual([]);
    // The stream gone (the page shows "Connecting…"): its heartbeats alone are no page.
    setStreams(0);
    vi.advanceTimersByTime(10_000);
    expect(w.heartbeat()).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(w.problem).toBe('no page on the screen for 20 s: its event stream has closed (the browser or its page ended)');
  });

  it('a page that connects and never sends a heartbeat is named as such', () => {
    const { w, setStreams } = watch(5_000);
    w.start();
    setStreams(1);
    vi.advanceTimersByTime(5_000);
    expect(w.problem).toBe(
      "no page on the screen for 5 s: its event stream is open, but the page sends no heartbeat (not this station's page, or its script stopped)",
    );
  });

  it('heartbeats without the kiosk secret: named in the problem once, however many; never counted', () => {
    const { w, changes, setStreams } = watch();
    w.start();
    w.refusedHeartbeat();
    vi.advanceTimersByTime(20_000);
    const named = 'no page on the screen for 20 s: the kiosk browser has not connected; heartbeats without the kiosk secret were refused';
    expect(w.problem).toBe(named);
    for (let i = 0; i < 1000; i++) w.refusedHeartbeat();
    expect(changes).toEqual([named]);
    // Once the page is back and gone again, refused heartbeats are news again.
    setStreams(1);
    w.heartbeat();
    setStreams(0);
    vi.advanceTimersByTime(20_000);
    expect(w.problem).toBe('no page on the screen for 20 s: its event stream has closed (the browser or its page ended)');
    w.refusedHeartbeat();
    expect(w.problem).toBe(
      'no page on the screen for 20 s: its event stream has closed (the browser or its page ended); heartbeats without the kiosk secret were refused',
    );
  });

  it('closed: no timer left, nothing more reported', () => {
    const { w, changes, setStreams } = watch();
    w.start();
    w.close();
    vi.advanceTimersByTime(60_000);
    setStreams(1);
    expect(w.heartbeat()).toBe(false);
    expect(changes).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** A restart schedule with a command the test answers (null: exited 0; text: why it failed). */
function restarter(o: { limit?: number; startMs?: number; answer?: (n: number) => string | null; command?: string[] | null } = {}) {
  const cap = captureLog();
  const notes: (string | null)[] = [];
  const runs: { argv: readonly string[]; timeoutMs: number }[] = [];
  const run: RunCommand = (argv, timeoutMs) => {
    runs.push({ argv, timeoutMs });
    return Promise.resolve(o.answer ? o.answer(runs.length) : null);
  };
  const r = new BrowserRestart({
    restartCommand: o.command === undefined ? ['systemctl', '--no-ask-password', 'restart', 'pickup-station-kiosk.service'] : o.command,
    startMs: o.startMs ?? 120_000,
    restartLimit: o.limit ?? 3,
    commandTimeoutMs: 60_000,
    log: cap.log,
    onNote: (n) => notes.push(n),
    run,
  });
  return { r, notes, runs, cap };
}

describe('BrowserRestart', () => {
  it("does not start the browser again while the station's own start is younger than startMs", async () => {
    const { r, runs } = restarter();
    r.start();
    await vi.advanceTimersByTimeAsync(20_000);
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(99_999);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([{ argv: ['systemctl', '--no-ask-password', 'restart', 'pickup-station-kiosk.service'], timeoutMs: 60_000 }]);
  });

  it('a page that goes later: started again at once, then again each startMs while the page stays away, at most restartLimit times; then none, said once', async () => {
    const { r, runs, notes, cap } = restarter();
    r.start();
    await vi.advanceTimersByTimeAsync(600_000);
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toHaveLength(1);
    expect(notes).toEqual(['the kiosk browser was started again (1 of 3)']);
    await vi.advanceTimersByTimeAsync(119_999);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(runs).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(runs).toHaveLength(3);
    const gaveUp = 'the kiosk browser was started again 3 times without the page coming back: no more restarts (journalctl -u pickup-station-kiosk)';
    expect(notes.at(-1)).toBe(gaveUp);
    // No loop: hours later, whatever else is said, nothing more is run.
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(24 * 3_600_000);
    expect(runs).toHaveLength(3);
    expect(notes.filter((n) => n === gaveUp)).toHaveLength(1);
    expect(cap.count(40, 'starting the kiosk browser again')).toBe(3);
    expect(cap.count(50, 'no more restarts')).toBe(1);
  });

  it('the page shown again: no note, and the count starts again', async () => {
    const { r, runs, notes, cap } = restarter();
    r.start();
    await vi.advanceTimersByTimeAsync(120_000);
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(240_000);
    expect(runs).toHaveLength(3);
    r.pageShown();
    expect(notes.at(-1)).toBeNull();
    expect(cap.count(30, 'kiosk page on the screen again after the kiosk browser was started again')).toBe(1);
    await vi.advanceTimersByTimeAsync(600_000);
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(240_000);
    expect(runs).toHaveLength(6);
  });

  it('a command that fails (systemd refusing a start) counts as a start and is said, with its first line', async () => {
    const why = 'Job for pickup-station-kiosk.service failed because start of the service was attempted too often.';
    const { r, runs, notes, cap } = restarter({ limit: 2, answer: () => `${why}\nSee "systemctl status pickup-station-kiosk.service" for details.` });
    r.start();
    await vi.advanceTimersByTimeAsync(120_000);
    r.pageMissing();
    await vi.advanceTimersByTimeAsync(0);
    expect(notes).toEqual([`starting the kiosk browser again failed (1 of 2): ${why}`]);
    await vi.advanceTimersByTimeAsync(240_000);
    expect(runs).toHaveLength(2);
    expect(notes.at(-1)).toMatch(/started again 2 times without the page coming back: no more restarts/);
    expect(cap.count(50, 'starting the kiosk browser again failed')).toBe(2);
  });

  it('the page back while the command ran: nothing noted', async () => {
    let finish: (v: string | null) => void = () => undefined;
    const cap = captureLog();
    const notes: (string | null)[] = [];
    const r = new BrowserRestart({
      restartCommand: ['restart-it'],
      startMs: 1_000,
      restartLimit: 3,
      commandTimeoutMs: 60_000,
      log: cap.log,
      onNote: (n) => notes.push(n),
      run: () => new Promise((resolve) => (finish = resolve)),
    });
    r.start();
    await vi.advanceTimersByTimeAsync(1_000);
    r.pageMissing();
    r.pageShown();
    finish(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(notes).toEqual([null]);
  });

  it('no command (a development setup): never run; restartLimit 0: never run, said once', async () => {
    const none = restarter({ command: null });
    none.r.start();
    none.r.pageMissing();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(none.runs).toEqual([]);
    expect(none.notes).toEqual([]);
    const zero = restarter({ limit: 0 });
    zero.r.start();
    zero.r.pageMissing();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(zero.runs).toEqual([]);
    expect(zero.notes).toEqual(['the kiosk browser is not started again (browser.restartLimit 0)']);
  });

  it('closed: no timer left, a running command ends unheard', async () => {
    const { r, notes } = restarter();
    r.start();
    r.close();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(notes).toEqual([]);
  });

  it("a failed command's words: one line, printable, bounded", () => {
    expect(oneLine('\n  first line\u0007 \nsecond')).toBe('first line?');
    expect(oneLine('x'.repeat(500))).toHaveLength(200);
  });
});
