/**
 * ReferenceServer: the HTTP plumbing around decide.ts. It authenticates, validates, answers
 * resends from a per-station eventId cache, injects faults, records every request and serves
 * the loopback-only control API. What to answer is decided elsewhere (decide.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { maskFields, maskText } from '../mask.js';
import { ENDPOINTS, type Endpoint, type RequestBodies } from '../protocol/types.js';
import { handleControl, CONTROL_PREFIX } from './control.js';
import { checkSimData } from './data.js';
import { decide } from './decide.js';
import { ServerStoppedError, SimConfigError, UnknownStationError, WaitTimeoutError } from './errors.js';
import { FaultTable, faultProcesses, replacementResponse, wrappedResponse } from './faults.js';
import { parseJson, parseJsonOrText, readBody, recordHeaders, sendJson, sendText } from './http-util.js';
import { exceptionBody, serverLanguage, type ExceptionType } from './messages.js';
import { initialStationState, isStationAvailable, snapshot, type StationSimState } from './state.js';
import type {
  Fault,
  FaultSpec,
  FaultTarget,
  ReferenceServerOptions,
  RequestRecord,
  SimAnswer,
  SimDeposit,
  SimLogger,
  SimPickup,
  SimulatedStation,
  StationSnapshot,
} from './types.js';
import { authenticate, extractEventId, isJsonContentType, validateRequest } from './validate.js';

export const DEFAULT_ABSENCE_MS = 120_000;
export const DEFAULT_PATH_PREFIX = '/v2';
/** Answers remembered per station for resends; a station resends within a minute, so this is plenty. */
export const EVENT_CACHE_LIMIT = 1000;

interface CachedAnswer {
  readonly endpoint: Endpoint;
  readonly body: RequestBodies[Endpoint];
  readonly answer: SimAnswer;
  readonly seq: number;
}

interface Processed {
  readonly answer: SimAnswer;
  readonly stationId: string | null;
  readonly resendOf: number | null;
  readonly notes: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

interface Waiter {
  readonly predicate: (r: RequestRecord) => boolean;
  readonly afterSeq: number;
  readonly resolve: (r: RequestRecord) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

type PartialRecord = Omit<RequestRecord, 'status' | 'response' | 'resendOf' | 'fault' | 'notes' | 'stationId'>;

/** Headers announcing the whole body, `cutAfter` bytes of it, then the connection reset. */
function sendCut(res: ServerResponse, status: number, contentType: string, text: string, cutAfter: number, headers: Readonly<Record<string, string>>): void {
  const body = Buffer.from(text);
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': body.length });
  res.write(body.subarray(0, cutAfter), () => res.destroy());
}

const noopLogger: SimLogger = { info: () => undefined, warn: () => undefined };

/** `log` with every line masked as the station's own log is (src/mask.ts). */
function maskingLogger(log: SimLogger): SimLogger {
  return {
    info: (obj, msg) => log.info(maskFields(obj as Record<string, unknown>), msg === undefined ? undefined : maskText(msg)),
    warn: (obj, msg) => log.warn(maskFields(obj as Record<string, unknown>), msg === undefined ? undefined : maskText(msg)),
  };
}

export class ReferenceServer {
  readonly #host: string;
  readonly #port: number;
  readonly #prefix: string;
  readonly #absenceMs: number;
  readonly #now: () => number;
  readonly #log: SimLogger;
  readonly #control: boolean;
  readonly #maxRecords: number;
  readonly #tls: ReferenceServerOptions['tls'];
  readonly #stations = new Map<string, SimulatedStation>();
  readonly #states = new Map<string, StationSimState>();
  readonly #events = new Map<string, Map<string, CachedAnswer>>();
  readonly #faults = new FaultTable();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #records: RequestRecord[] = [];
  readonly #waiters = new Set<Waiter>();
  #seq = 0;
  #server: Server | null = null;
  #url: string | null = null;

  constructor(options: ReferenceServerOptions) {
    const problems = checkSimData(options.stations, options.deposits ?? [], options.pickups ?? []);
    const prefix = (options.pathPrefix ?? DEFAULT_PATH_PREFIX).replace(/\/+$/, '');
    if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) problems.push(`pathPrefix: must be '' or like '/v2' (got ${JSON.stringify(options.pathPrefix)})`);
    // The control API must never be reachable under the protocol prefix, nor shadow it.
    if (prefix === CONTROL_PREFIX || prefix.startsWith(`${CONTROL_PREFIX}/`)) problems.push(`pathPrefix: must not start with ${CONTROL_PREFIX}`);
    const absenceMs = options.absenceMs ?? DEFAULT_ABSENCE_MS;
    if (!(absenceMs > 0)) problems.push(`absenceMs: must be > 0 (got ${absenceMs})`);
    if (problems.length > 0) throw new SimConfigError(problems);
    this.#host = options.host ?? '127.0.0.1';
    this.#port = options.port ?? 0;
    this.#prefix = prefix;
    this.#absenceMs = absenceMs;
    this.#now = options.now ?? (() => performance.now());
    const logger = options.logger ?? noopLogger;
    this.#log = options.logIdentifiers === true ? logger : maskingLogger(logger);
    this.#control = options.control ?? true;
    this.#maxRecords = options.maxRecords ?? 10_000;
    this.#tls = options.tls;
    for (const s of options.stations) {
      this.#stations.set(s.id, s);
      this.#states.set(s.id, initialStationState(s, options.deposits ?? [], options.pickups ?? []));
      this.#events.set(s.id, new Map());
    }
  }

  /** Base URL including the prefix, e.g. http://127.0.0.1:41234/v2. Throws before start(). */
  get url(): string {
    if (this.#url === null) throw new Error('reference server not started');
    return this.#url;
  }

  /**
   * Every request received (newest maxRecords), in the order the server acted on them. A live
   * read-only view, not a copy: hold on to a record, not to the array, across requests.
   */
  get requests(): readonly RequestRecord[] {
    return this.#records;
  }

  /** seq of the newest record (0 before any): pass it as afterSeq to wait for a later request. */
  get lastSeq(): number {
    return this.#seq;
  }

  get stationIds(): readonly string[] {
    return [...this.#stations.keys()];
  }

  async start(): Promise<string> {
    if (this.#server !== null) throw new Error('reference server already started');
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.#onRequest(req, res);
    const server: Server = this.#tls === undefined ? createServer(handler) : createTlsServer({ key: this.#tls.key, cert: this.#tls.cert }, handler);
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = server.address() as AddressInfo;
    this.#url = `${this.#tls === undefined ? 'http' : 'https'}://${address.includes(':') ? `[${address}]` : address}:${port}${this.#prefix}`;
    return this.#url;
  }

  /** Stops listening, cuts open connections and pending delayed answers, rejects waiters. */
  async stop(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const w of this.#waiters) {
      clearTimeout(w.timer);
      w.reject(new ServerStoppedError());
    }
    this.#waiters.clear();
    const server = this.#server;
    if (server === null) return;
    this.#server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /**
   * The first record matching `predicate` with seq > afterSeq (default 0: past requests count too,
   * so a request that arrived before the call is not missed). Rejects with WaitTimeoutError.
   */
  waitForRequest(predicate: (r: RequestRecord) => boolean, timeoutMs = 5000, opts: { afterSeq?: number } = {}): Promise<RequestRecord> {
    const afterSeq = opts.afterSeq ?? 0;
    const past = this.#records.find((r) => r.seq > afterSeq && predicate(r));
    if (past !== undefined) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        afterSeq,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(new WaitTimeoutError(timeoutMs, this.#records.length));
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** Arms a fault for an endpoint or '*' (all four), for the next `times` requests or until cleared. */
  setFault(target: FaultTarget, fault: FaultSpec, opts: { times?: number } = {}): void {
    this.#faults.set(target, fault, opts.times);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  faults(): { target: FaultTarget; fault: Fault; remaining: number | null }[] {
    return this.#faults.list();
  }

  /** The next /state of that station is answered with station-disable and these messages; box actions are refused. */
  disableStation(stationId: string, displayMessages: readonly string[]): void {
    this.#update(stationId, (s) => ({ ...s, disabled: [...displayMessages] }));
  }

  enableStation(stationId: string): void {
    this.#update(stationId, (s) => ({ ...s, disabled: null }));
  }

  isAvailable(stationId: string): boolean {
    return isStationAvailable(this.#state(stationId), this.#now(), this.#absenceMs);
  }

  stationState(stationId: string): StationSnapshot {
    return snapshot(this.#state(stationId), this.#now(), this.#absenceMs);
  }

  addDeposit(deposit: SimDeposit): void {
    const state = this.#state(deposit.stationId);
    this.#checkAdd([...state.deposits.map((d) => d.deposit), deposit], []);
    this.#states.set(deposit.stationId, { ...state, deposits: [...state.deposits, { deposit, stored: false }] });
  }

  addPickup(pickup: SimPickup): void {
    const state = this.#state(pickup.stationId);
    this.#checkAdd([], [...state.pickups.map((p) => p.pickup), pickup]);
    this.#states.set(pickup.stationId, { ...state, pickups: [...state.pickups, { pickup, used: false }] });
  }

  #checkAdd(deposits: SimDeposit[], pickups: SimPickup[]): void {
    const problems = checkSimData([...this.#stations.values()], deposits, pickups);
    if (problems.length > 0) throw new SimConfigError(problems);
  }

  #state(stationId: string): StationSimState {
    const s = this.#states.get(stationId);
    if (s === undefined) throw new UnknownStationError(stationId);
    return s;
  }

  #update(stationId: string, f: (s: StationSimState) => StationSimState): void {
    this.#states.set(stationId, f(this.#state(stationId)));
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.#handle(req, res).catch((e: unknown) => {
      this.#log.warn({ err: e instanceof Error ? e.message : String(e), path: req.url }, 'reference server request failed');
      if (!res.headersSent) sendJson(res, 500, exceptionBody('IllegalStateException', 'reference server bug'));
      else res.destroy();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    if (this.#control && (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`))) {
      await handleControl(this, req, res, path);
      return;
    }
    const text = await readBody(req);
    const endpoint = ENDPOINTS.find((e) => path === `${this.#prefix}/${e}`) ?? null;
    const body = text === null ? '(too large)' : parseJsonOrText(text);
    const traceHeader = req.headers['x-service-trace-id'];
    const base: PartialRecord = {
      seq: ++this.#seq,
      at: this.#now(),
      endpoint,
      method: req.method ?? 'GET',
      path,
      headers: recordHeaders(req.headers),
      body,
      eventId: extractEventId(body),
      traceId: typeof traceHeader === 'string' ? traceHeader : null,
    };
    const echo: Record<string, string> = base.traceId === null ? {} : { 'x-service-trace-id': base.traceId };
    const language = serverLanguage(req.headers['accept-language']);
    const refuse = (status: number, type: ExceptionType, message: string, headers: Record<string, string> = {}): void => {
      const response = exceptionBody(type, message, undefined, language);
      sendJson(res, status, response, { ...echo, ...headers });
      this.#record(base, { status, response, stationId: null, resendOf: null, fault: null, notes: [] });
    };
    if (endpoint === null) return refuse(404, 'NotFoundException', `no endpoint ${path}`);
    if (req.method !== 'POST') return refuse(405, 'MethodNotAllowedException', `${req.method} ${path}: only POST`, { allow: 'POST' });
    if (text === null) return refuse(413, 'PayloadTooLargeException', 'body too large');

    const fault = this.#faults.take(endpoint);
    if (fault !== null && !faultProcesses(fault)) {
      const raw = replacementResponse(fault, endpoint, path);
      if (raw === null) res.destroy();
      else sendText(res, raw.status, raw.contentType, raw.text, { ...echo, ...raw.headers });
      this.#record(base, {
        status: raw?.status ?? null,
        response: raw?.recorded ?? null,
        stationId: null,
        resendOf: null,
        fault: fault.kind,
        notes: ['not processed'],
      });
      return;
    }

    const p = this.#process(endpoint, req, text, base.seq);
    const headers = { ...echo, ...p.headers };
    const result = { stationId: p.stationId, resendOf: p.resendOf, fault: fault?.kind ?? null, notes: p.notes };
    if (fault?.kind === 'drop') {
      res.destroy();
      this.#record(base, { ...result, status: null, response: null });
    } else if (fault?.kind === 'delay') {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (!res.destroyed) sendJson(res, p.answer.status, p.answer.body, headers);
      }, fault.ms);
      this.#timers.add(timer);
      this.#record(base, { ...result, status: p.answer.status, response: p.answer.body });
    } else if (fault === null) {
      sendJson(res, p.answer.status, p.answer.body, headers);
      this.#record(base, { ...result, status: p.answer.status, response: p.answer.body });
    } else {
      const w = wrappedResponse(fault, p.answer.status, p.answer.body);
      if (w.cutAfter === undefined) sendText(res, w.status, w.contentType, w.text, headers);
      else sendCut(res, w.status, w.contentType, w.text, w.cutAfter, headers);
      this.#record(base, { ...result, status: w.status, response: w.recorded });
    }
  }

  /** Auth, media type, body, resend cache, then decide(). Acts at most once per (station, eventId). */
  #process(endpoint: Endpoint, req: IncomingMessage, text: string, seq: number): Processed {
    // Texts in the language the station asks for (Accept-Language), like a real library server.
    const language = serverLanguage(req.headers['accept-language']);
    const fail = (status: number, type: ExceptionType, message: string, stationId: string | null = null): Processed => ({
      answer: { status, body: exceptionBody(type, message, undefined, language) },
      stationId,
      resendOf: null,
      notes: [message],
      ...(status === 401 ? { headers: { 'www-authenticate': 'Basic realm="station"' } } : {}),
    });
    const station = authenticate(req.headers.authorization, this.#stations);
    if (station === null) return fail(401, 'AuthenticationException', 'missing or wrong station credentials');
    if (!isJsonContentType(req.headers['content-type'])) {
      return fail(415, 'UnsupportedMediaTypeException', `content-type must be application/json (got ${req.headers['content-type'] ?? 'none'})`, station.id);
    }
    const json = parseJson(text);
    if (!json.ok) return fail(400, 'BadRequestException', 'body is not JSON', station.id);
    const v = validateRequest(endpoint, json.value, station);
    if (!v.ok) return fail(400, 'BadRequestException', v.problems.join('; '), station.id);

    const now = this.#now();
    const cache = this.#events.get(station.id) ?? new Map<string, CachedAnswer>();
    this.#events.set(station.id, cache);
    const prior = cache.get(v.request.body.event);
    if (prior !== undefined) {
      if (prior.endpoint !== endpoint || !isDeepStrictEqual(prior.body, v.request.body)) {
        return fail(400, 'EventIdConflictException', `eventId ${v.request.body.event} was used for a different request (seq ${prior.seq})`, station.id);
      }
      // A resent /state still proves the station is alive; nothing else is applied again.
      if (endpoint === 'state') this.#update(station.id, (s) => ({ ...s, lastHeartbeatAt: now }));
      return { answer: prior.answer, stationId: station.id, resendOf: prior.seq, notes: [`resend of seq ${prior.seq}`] };
    }
    const decision = decide(this.#state(station.id), v.request, { now, absenceMs: this.#absenceMs, language });
    this.#states.set(station.id, decision.state);
    cache.set(v.request.body.event, { endpoint, body: v.request.body, answer: decision.answer, seq });
    if (cache.size > EVENT_CACHE_LIMIT) cache.delete(cache.keys().next().value ?? '');
    return { answer: decision.answer, stationId: station.id, resendOf: null, notes: decision.notes };
  }

  #record(base: PartialRecord, rest: Omit<RequestRecord, keyof PartialRecord>): void {
    const record: RequestRecord = { ...base, ...rest };
    this.#records.push(record);
    if (this.#records.length > this.#maxRecords) this.#records.splice(0, this.#records.length - this.#maxRecords);
    const line = {
      seq: record.seq,
      endpoint: record.endpoint,
      method: record.method,
      path: record.path,
      status: record.status,
      station: record.stationId,
      event: record.eventId,
      traceId: record.traceId,
      type: typeof record.response === 'object' && record.response !== null && 'type' in record.response ? record.response.type : null,
      resendOf: record.resendOf,
      fault: record.fault,
      notes: record.notes,
    };
    if (record.status !== null && record.status >= 400 && record.fault === null) this.#log.warn(line, 'station request refused');
    else this.#log.info(line, 'station request');
    for (const w of this.#waiters) {
      if (record.seq > w.afterSeq && w.predicate(record)) {
        clearTimeout(w.timer);
        this.#waiters.delete(w);
        w.resolve(record);
      }
    }
  }
}
