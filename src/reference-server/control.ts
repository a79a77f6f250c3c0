/**
 * Loopback-only control API under /_control/ (outside any protocol prefix), so a fleet
 * generator or another process can steer a running server the way tests steer it in-process.
 * It has no authentication: refusing every non-loopback peer is what keeps it private.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from '../schema.js';
import { SimConfigError, UnknownStationError } from './errors.js';
import { faultRequestSchema } from './faults.js';
import { isLoopback, parseJson, readBody, sendJson } from './http-util.js';
import { simDepositSchema, simPickupSchema } from './data.js';
import type { Fault, FaultSpec, FaultTarget, RequestRecord, SimDeposit, SimPickup, StationSnapshot } from './types.js';

export const CONTROL_PREFIX = '/_control';

/** The part of ReferenceServer the control API drives. */
export interface ControlTarget {
  readonly requests: readonly RequestRecord[];
  readonly stationIds: readonly string[];
  setFault(target: FaultTarget, fault: FaultSpec, opts?: { times?: number }): void;
  clearFaults(): void;
  faults(): { target: FaultTarget; fault: Fault; remaining: number | null }[];
  disableStation(stationId: string, displayMessages: readonly string[]): void;
  enableStation(stationId: string): void;
  stationState(stationId: string): StationSnapshot;
  addDeposit(deposit: SimDeposit): void;
  addPickup(pickup: SimPickup): void;
}

const disableSchema = z.object({ stationId: z.string(), displayMessages: z.array(z.string()).check(z.minLength(1)) });
const enableSchema = z.object({ stationId: z.string() });

class ControlRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parseWith<T>(schema: z.ZodMiniType<T>, text: string): T {
  const json = parseJson(text === '' ? '{}' : text);
  if (!json.ok) throw new ControlRequestError(400, 'body is not JSON');
  const parsed = schema.safeParse(json.value);
  if (!parsed.success)
    throw new ControlRequestError(400, parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`).join('; '));
  return parsed.data;
}

export async function handleControl(target: ControlTarget, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress)) {
    req.resume();
    sendJson(res, 403, { error: 'control API is loopback-only' });
    return;
  }
  const text = (await readBody(req)) ?? '';
  const route = `${req.method ?? 'GET'} ${path.slice(CONTROL_PREFIX.length)}`;
  try {
    sendJson(res, 200, dispatch(target, route, text, new URL(req.url ?? '/', 'http://sim')));
  } catch (e) {
    const status = e instanceof ControlRequestError ? e.status : e instanceof UnknownStationError ? 404 : e instanceof SimConfigError ? 400 : 500;
    sendJson(res, status, { error: e instanceof Error ? e.message : String(e) });
  }
}

function dispatch(target: ControlTarget, route: string, text: string, url: URL): unknown {
  const station = /^GET \/stations\/([^/]+)$/.exec(route);
  if (station?.[1] !== undefined) return target.stationState(decodeURIComponent(station[1]));
  switch (route) {
    case 'GET /requests': {
      const after = Number(url.searchParams.get('after') ?? '0');
      return { requests: target.requests.filter((r) => r.seq > after) };
    }
    case 'GET /stations':
      return { stations: target.stationIds };
    case 'GET /faults':
      return { faults: target.faults() };
    case 'POST /fault': {
      const { endpoint, fault, times } = parseWith(faultRequestSchema, text);
      target.setFault(endpoint, fault, times === undefined ? {} : { times });
      return { ok: true };
    }
    case 'POST /clear-faults':
      target.clearFaults();
      return { ok: true };
    case 'POST /disable': {
      const { stationId, displayMessages } = parseWith(disableSchema, text);
      target.disableStation(stationId, displayMessages);
      return { ok: true };
    }
    case 'POST /enable':
      target.enableStation(parseWith(enableSchema, text).stationId);
      return { ok: true };
    case 'POST /deposits':
      target.addDeposit(parseWith(simDepositSchema, text));
      return { ok: true };
    case 'POST /pickups':
      target.addPickup(parseWith(simPickupSchema, text));
      return { ok: true };
    default:
      throw new ControlRequestError(404, `no control route ${route}`);
  }
}
