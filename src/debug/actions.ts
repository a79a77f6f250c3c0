/**
 * Service-scope routes: open a box, self-test, service mode, inject a scan, a PIN or the cancel
 * button, reload.
 *
 * Every action is logged at warn level with the technician's token *name* (never the token), and
 * published to the live stream. Actions that open a box or act as a reader pass the gate first:
 * nothing else long-running, the station waiting for input with nothing in flight and no sign of
 * a reader (guards.ts); otherwise 409 with the reason. A PIN is never logged or echoed.
 */
import { z } from 'zod';
import type { Logger } from '../log.js';
import { busyReason, inServiceMode, isRescue, readerActivity } from './guards.js';
import { HttpError, readJson, sendJson } from './http.js';
import type { StationHost } from './host.js';
import type { RequestContext, Route } from './router.js';
import { runSelfTest } from './selftest.js';

export interface ActionDeps {
  readonly host: StationHost;
  readonly log: Logger;
}

/** How long an action waits for a protocol event in flight (usually a heartbeat) to be answered. */
const QUIET_WAIT_MS = 3_000;
const POLL_MS = 10;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll until `done()` holds or `ms` passed; returns whether it holds. */
async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/**
 * 409 unless the station is free for an action that opens a box or acts as a reader. A heartbeat
 * in flight is waited out (briefly) rather than refused: it says nothing about a reader.
 */
async function gate(host: StationHost, opts: { rescue?: boolean } = {}): Promise<void> {
  if (host.busyWith !== null) throw new HttpError(409, 'busy', `${host.busyWith} in progress`);
  await waitFor(() => host.station.runtime.snapshot().inFlight === null, QUIET_WAIT_MS);
  const snap = host.station.runtime.snapshot();
  // A rescue open (service mode, the server cannot be asked) needs only that no reader is here: the
  // deactivated heartbeat may stay in flight for a minute.
  const reason = opts.rescue && isRescue(snap) ? readerActivity(host.core, snap) : busyReason(host.core, snap);
  if (reason !== null) throw new HttpError(409, 'busy', `not now: ${reason}`);
}

const empty = z.strictObject({});
const serviceBody = z.strictObject({ on: z.boolean() });
const scanBody = z.strictObject({
  value: z.string().min(1).max(128),
  identifierType: z.enum(['BAR_CODE', 'RFID']).default('BAR_CODE'),
});
const pinBody = z.strictObject({ pin: z.string().regex(/^[0-9]{1,6}$/, 'must be 1 to 6 digits') });

export function actionRoutes({ host, log }: ActionDeps): Route[] {
  const maxBody = (): number => host.config.debug.maxBodyBytes;
  const audit = (ctx: RequestContext, action: string, detail: Record<string, unknown> = {}): void => {
    log.warn({ technician: ctx.who.name, action, ...detail }, `technician action: ${action}`);
    host.observer.publish({ type: 'technician', action, by: ctx.who.name, detail });
  };
  /** Injection stands in for a person at the station: simulated hardware, or real hardware in service mode. */
  const mayInject = (): void => {
    if (host.config.hardware.kind !== 'simulated' && !inServiceMode(host.station.runtime.snapshot()))
      throw new HttpError(409, 'not_allowed', 'injecting input needs simulated hardware or service mode');
  };

  return [
    {
      method: 'POST',
      path: '/api/boxes/:box/open',
      scope: 'service',
      async handle(ctx) {
        await readJson(ctx.req, maxBody(), empty);
        const key = ctx.params['box'] ?? '';
        const box = host.core.boxes.find((b) => String(b.number) === key || b.id === key);
        if (box === undefined) throw new HttpError(404, 'unknown_box', `no box "${key}" at this station`);
        await gate(host, { rescue: true });
        const rescue = isRescue(host.station.runtime.snapshot());
        audit(ctx, rescue ? 'rescue open box' : 'open box', { box: box.number, boxId: box.id, mode: host.station.runtime.snapshot().mode.kind });
        host.observer.expectPulse(box.id, `technician ${ctx.who.name}${rescue ? ', rescue' : ''}`);
        const { runtime } = host.station;
        runtime.dispatch({ type: 'technician-open', boxId: box.id, by: ctx.who.name });
        const opening = (): boolean => {
          const m = runtime.snapshot().mode;
          return m.kind === 'opening' && m.boxes.includes(box.id);
        };
        // The core has the last word; it refused (a race with a reader's input) if it is not opening now.
        if (!opening()) throw new HttpError(409, 'busy', 'the station refused the opening');
        // Answer with the door's outcome: OPEN, or the door-open time ran out (reported in /state either way).
        await waitFor(() => runtime.snapshot().doorWindow[box.id] !== 'pending', host.config.timing.doorOpenTimeoutMs + host.config.locks.pulseMs + 1_000);
        const opened = runtime.snapshot().boxes[box.id] === 'OPEN';
        sendJson(ctx.res, 200, { box: box.number, id: box.id, opened, rescue });
      },
    },
    {
      method: 'POST',
      path: '/api/selftest',
      scope: 'service',
      async handle(ctx) {
        await readJson(ctx.req, maxBody(), empty);
        if (!inServiceMode(host.station.runtime.snapshot()))
          throw new HttpError(409, 'not_in_service_mode', 'the self-test opens every box: turn service mode on first (POST /api/service {"on":true})');
        await gate(host);
        const report = await host.exclusive('self-test', () => {
          const { station, config } = host;
          audit(ctx, 'self-test', { boxes: config.station.boxes.length });
          return runSelfTest({
            hardware: station.hardware,
            boxes: config.station.boxes,
            pulseMs: config.locks.pulseMs,
            doorOpenTimeoutMs: config.timing.doorOpenTimeoutMs,
            observer: host.observer,
            unsafe: () => {
              const s = station.runtime.snapshot();
              if (host.station !== station) return 'the station restarted';
              if (!inServiceMode(s)) return 'service mode was turned off';
              if (s.mode.kind !== 'idle') return `station mode is ${s.mode.kind}`;
              if (s.inFlight !== null && s.inFlight !== 'state') return `/${s.inFlight} in flight`;
              if (s.pin !== '') return 'a PIN is being typed at the station';
              return null;
            },
          });
        });
        log.warn({ technician: ctx.who.name, action: 'self-test', ok: report.ok, results: report.results, skipped: report.skipped }, 'self-test done');
        sendJson(ctx.res, 200, report);
      },
    },
    {
      method: 'POST',
      path: '/api/service',
      scope: 'service',
      async handle(ctx) {
        const { on } = await readJson(ctx.req, maxBody(), serviceBody);
        audit(ctx, on ? 'service mode on' : 'service mode off');
        host.setService(on);
        host.observer.publish({ type: 'service', on, by: ctx.who.name });
        sendJson(ctx.res, 200, { service: on });
      },
    },
    {
      method: 'POST',
      path: '/api/inject/scan',
      scope: 'service',
      async handle(ctx) {
        const { value, identifierType } = await readJson(ctx.req, maxBody(), scanBody);
        mayInject();
        await gate(host);
        audit(ctx, 'inject scan', { identifierType, identifierValue: value });
        host.station.runtime.dispatch({ type: 'scan', identifierType, value, at: performance.now() });
        sendJson(ctx.res, 202, { injected: 'scan', sent: host.station.runtime.snapshot().inFlight === 'item-identify' });
      },
    },
    {
      method: 'POST',
      path: '/api/inject/pin',
      scope: 'service',
      async handle(ctx) {
        const { pin } = await readJson(ctx.req, maxBody(), pinBody);
        mayInject();
        await gate(host);
        audit(ctx, 'inject pin', { length: pin.length });
        const { runtime } = host.station;
        for (const digit of pin) runtime.dispatch({ type: 'key', key: { kind: 'digit', digit } });
        runtime.dispatch({ type: 'key', key: { kind: 'enter' } });
        sendJson(ctx.res, 202, { injected: 'pin', sent: runtime.snapshot().inFlight === 'pin-enter' });
      },
    },
    {
      method: 'POST',
      path: '/api/inject/cancel',
      scope: 'service',
      async handle(ctx) {
        await readJson(ctx.req, maxBody(), empty);
        mayInject();
        // No gate: a cancel only means something while a box waits for closing; the core decides.
        audit(ctx, 'inject cancel');
        const { runtime } = host.station;
        runtime.dispatch({ type: 'cancel-pressed' });
        sendJson(ctx.res, 202, { injected: 'cancel', sent: runtime.snapshot().inFlight === 'cancel' });
      },
    },
    {
      method: 'POST',
      path: '/api/reload',
      scope: 'service',
      async handle(ctx) {
        await readJson(ctx.req, maxBody(), empty);
        audit(ctx, 'reload config');
        const result = await host.reload();
        if (!result.ok) {
          log.warn({ technician: ctx.who.name, problems: result.problems.length }, 'reload refused: invalid config; the running config stays');
          sendJson(ctx.res, 422, { error: 'invalid_config', message: `invalid config ${result.source}`, problems: result.problems });
          return;
        }
        log.warn({ technician: ctx.who.name, restartNeeded: result.restartNeeded }, 'config reloaded; station restarted');
        sendJson(ctx.res, 200, { reloaded: true, restartNeeded: result.restartNeeded });
      },
    },
  ];
}
