/**
 * Read-scope routes: status, the event list, the log tail, and the two live streams.
 */
import type { Logger, LogRing } from '../log.js';
import { HttpError, sendJson } from './http.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { ConsoleLoginLog } from '../service/console-logins.js';
import type { RequestContext, Route } from './router.js';
import { openSse, type SseDrop } from '../edge/sse.js';
import { buildStatus, eventView } from './status.js';

export interface ReadDeps {
  readonly supervisor: Supervisor;
  readonly ring: LogRing;
  /** Counts open live streams against technician.maxStreams. */
  readonly streams: { open: number };
  readonly log: Logger;
  /** Failed console logins for the status; null: not watched. */
  readonly consoleLogins: ConsoleLoginLog | null;
}

/** A non-negative integer query parameter, clamped to `max`; `dflt` when absent. 400 (naming the range) when malformed. */
export function intParam(url: URL, name: string, dflt: number, max: number): number {
  const v = url.searchParams.get(name);
  if (v === null) return dflt;
  if (!/^\d{1,15}$/.test(v)) throw new HttpError(400, 'invalid_query', `${name} must be a whole number from 0 to ${max} (larger ones count as ${max})`);
  return Math.min(Number(v), max);
}

function openStream(deps: ReadDeps, ctx: RequestContext) {
  const { maxStreams, keepAliveMs, streamBufferBytes } = deps.supervisor.config.technician;
  if (deps.streams.open >= maxStreams) throw new HttpError(503, 'too_many_streams', `at most ${maxStreams} live streams at once`);
  const path = ctx.url.pathname;
  const technician = ctx.who.name;
  const onDrop = ({ held, adding }: SseDrop): void => {
    // What it would have held with the event that did not fit.
    const unsent = held + adding;
    // Later, not now: a drop can happen inside the log ring's own write (the log stream), and
    // logging from there would re-enter the logger mid-line.
    setImmediate(() =>
      deps.log.warn(
        { path, technician, unsentBytes: unsent, limit: streamBufferBytes },
        'live stream dropped: its client stopped reading (technician.streamBufferBytes)',
      ),
    );
  };
  const stream = openSse(ctx.res, { keepAliveMs, maxBufferedBytes: streamBufferBytes, onDrop });
  deps.streams.open++;
  stream.onClose(() => deps.streams.open--);
  return stream;
}

export function readRoutes(deps: ReadDeps): Route[] {
  const { supervisor, ring, consoleLogins } = deps;
  return [
    {
      method: 'GET',
      path: '/api/status',
      scope: 'read',
      handle: (ctx) => {
        sendJson(ctx.res, 200, buildStatus(supervisor, ctx.who, intParam(ctx.url, 'events', supervisor.config.technician.statusEvents, 100), consoleLogins));
      },
    },
    {
      method: 'GET',
      path: '/api/events',
      scope: 'read',
      handle: (ctx) => {
        const now = performance.now();
        const events = supervisor.station.runtime.events().slice(-intParam(ctx.url, 'limit', 20, 100));
        sendJson(ctx.res, 200, { events: events.map((r) => eventView(r, now)) });
      },
    },
    {
      method: 'GET',
      path: '/api/logs',
      scope: 'read',
      handle: (ctx) => {
        sendJson(ctx.res, 200, { lines: ring.tail(intParam(ctx.url, 'lines', 100, ring.capacity)) });
      },
    },
    {
      method: 'GET',
      path: '/api/logs/stream',
      scope: 'read',
      handle: (ctx) => {
        const backlog = intParam(ctx.url, 'lines', 0, ring.capacity);
        const stream = openStream(deps, ctx);
        stream.sendBacklog('log', ring.tail(backlog));
        stream.onClose(ring.follow((line) => stream.send('log', line)));
      },
    },
    {
      method: 'GET',
      path: '/api/events/stream',
      scope: 'read',
      handle: (ctx) => {
        const status = buildStatus(supervisor, ctx.who, supervisor.config.technician.statusEvents, consoleLogins);
        const stream = openStream(deps, ctx);
        // The current picture first, then every change: a client never has to merge two sources.
        stream.send('status', status);
        stream.onClose(supervisor.observer.subscribe((e) => stream.send(e.type, e)));
      },
    },
  ];
}
