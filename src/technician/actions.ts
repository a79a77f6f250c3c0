/**
 * Service-scope routes: open a box, self-test, service mode, inject a scan, a PIN or the cancel
 * button, reload.
 *
 * Every action is logged at warn level with the technician's token *name* (never the token), and
 * published to the live stream. Actions that open a box or act as a reader pass the gate first:
 * nothing else long-running, the station waiting for input with nothing in flight and no sign of
 * a reader (the supervisor's whenFree: the core's rules); otherwise 409 with the reason. A PIN is never logged or echoed.
 */
import * as z from '../schema.js';
import { maskIdentifier, type Logger } from '../log.js';
import { inServiceMode, selfTestBlocker } from '../station/core.js';
import { reloadedHow } from '../supervisor/reload-words.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { untilState } from '../supervisor/until.js';
import { HttpError, readJson, sendJson } from './http.js';
import type { RequestContext, Route } from './router.js';
import { runSelfTest } from './selftest.js';

export interface ActionDeps {
  readonly supervisor: Supervisor;
  readonly log: Logger;
}

/** Aborted once the technician's connection closes before the answer: nothing is left to answer then. */
function whileAsked(ctx: RequestContext): AbortSignal {
  const gone = new AbortController();
  ctx.res.once('close', () => gone.abort());
  return gone.signal;
}

const empty = z.strictObject({});
const serviceBody = z.strictObject({ on: z.boolean() });
const scanBody = z.strictObject({
  value: z.string().check(z.minLength(1), z.maxLength(128)),
  identifierType: z._default(z.enum(['BAR_CODE', 'RFID']), 'BAR_CODE'),
});
const pinBody = z.strictObject({ pin: z.string().check(z.regex(/^[0-9]{1,6}$/, 'must be 1 to 6 digits')) });

export function actionRoutes({ supervisor, log }: ActionDeps): Route[] {
  const maxBody = (): number => supervisor.config.technician.maxBodyBytes;
  const audit = (ctx: RequestContext, action: string, detail: Record<string, unknown> = {}): void => {
    log.warn({ technician: ctx.who.name, action, ...detail }, `technician action: ${action}`);
    supervisor.observer.publish({ type: 'technician', action, by: ctx.who.name, detail });
  };
  /** Injection stands in for a person at the station: simulated hardware, or real hardware in service mode. */
  const mayInject = (): void => {
    if (supervisor.config.hardware.kind !== 'simulated' && !inServiceMode(supervisor.station.runtime.snapshot()))
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
        const box = supervisor.core.boxes.find((b) => String(b.number) === key || b.id === key);
        if (box === undefined) throw new HttpError(404, 'unknown_box', `no box "${key}" at this station`);
        const { rescue } = await supervisor.whenFreeToOpen();
        audit(ctx, rescue ? 'rescue open box' : 'open box', { box: box.number, boxId: box.id, mode: supervisor.station.runtime.snapshot().mode.kind });
        supervisor.observer.expectPulse(box.id, `technician ${ctx.who.name}${rescue ? ', rescue' : ''}`);
        const { runtime } = supervisor.station;
        runtime.dispatch({ type: 'technician-open', boxId: box.id, by: ctx.who.name });
        const opening = (): boolean => {
          const m = runtime.snapshot().mode;
          return m.kind === 'opening' && m.boxes.includes(box.id);
        };
        // The core has the last word; it refused (a race with a reader's input) if it is not opening now.
        if (!opening()) throw new HttpError(409, 'busy', 'the station refused the opening');
        // Answer with the door's outcome: OPEN, or the door-open time ran out (reported in /state
        // either way). The core's own timer ends the window after doorOpenTimeoutMs; this wait,
        // started after it, ends no sooner, and a station stopped meanwhile ends it at that limit.
        await untilState(runtime, (s) => s.doorWindow[box.id] !== 'pending', supervisor.config.timing.doorOpenTimeoutMs, whileAsked(ctx));
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
        if (!inServiceMode(supervisor.station.runtime.snapshot()))
          throw new HttpError(409, 'not_in_service_mode', 'the self-test opens every box: turn service mode on first (POST /api/service {"on":true})');
        await supervisor.whenFree();
        const report = await supervisor.exclusive('self-test', (signal) => {
          const { station, config } = supervisor;
          audit(ctx, 'self-test', { boxes: config.station.boxes.length });
          return runSelfTest({
            hardware: station.hardware,
            boxes: config.station.boxes,
            pulseMs: config.locks.pulseMs,
            doorOpenTimeoutMs: config.timing.doorOpenTimeoutMs,
            observer: supervisor.observer,
            signal,
            unsafe: () => {
              if (signal.aborted) return 'the station is stopping';
              if (supervisor.now()?.station !== station) return 'the station restarted';
              return selfTestBlocker(station.runtime.snapshot());
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
        supervisor.setService(on);
        supervisor.observer.publish({ type: 'service', on, by: ctx.who.name });
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
        await supervisor.whenFree();
        // The audit line and the events stream show the identifier masked, as every other place does.
        audit(ctx, 'inject scan', { identifierType, identifierValue: maskIdentifier(value) });
        supervisor.station.runtime.dispatch({ type: 'scan', identifierType, value, at: performance.now() });
        sendJson(ctx.res, 202, { injected: 'scan', sent: supervisor.station.runtime.snapshot().inFlight === 'item-identify' });
      },
    },
    {
      method: 'POST',
      path: '/api/inject/pin',
      scope: 'service',
      async handle(ctx) {
        const { pin } = await readJson(ctx.req, maxBody(), pinBody);
        mayInject();
        await supervisor.whenFree();
        audit(ctx, 'inject pin', { length: pin.length });
        const { runtime } = supervisor.station;
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
        const { runtime } = supervisor.station;
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
        const result = await supervisor.reload();
        if (!result.ok) {
          log.warn({ technician: ctx.who.name, problems: result.problems.length }, 'reload refused: invalid config; the running config stays');
          sendJson(ctx.res, 422, { error: 'invalid_config', message: `invalid config ${result.source}`, problems: result.problems });
          return;
        }
        log.warn({ technician: ctx.who.name, applied: result.applied, restartNeeded: result.restartNeeded }, `config reloaded: ${reloadedHow(result.applied)}`);
        sendJson(ctx.res, 200, { reloaded: true, applied: result.applied, version: result.version, restartNeeded: result.restartNeeded });
      },
    },
  ];
}
