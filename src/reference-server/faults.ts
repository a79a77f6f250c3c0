/**
 * Injected faults: what a station meets in the field between itself and the library server
 * (slow server, lost answers, proxies, broken deployments). Pure apart from FaultTable's counters.
 */
import * as z from '../schema.js';
import type { Endpoint } from '../protocol/types.js';
import { EXCEPTION_MESSAGES, exceptionBody, type ExceptionType } from './messages.js';
import type { Fault, FaultKind, FaultSpec, FaultTarget } from './types.js';

export const FAULT_KINDS: readonly FaultKind[] = [
  'delay',
  'drop',
  'reset',
  'truncated',
  'huge',
  'exception500',
  'exception',
  'status',
  'html502',
  'redirect',
  'empty',
  'non-json',
  'malformed',
  'unknown-command',
  'foreign-box',
  'extra-fields',
];

/** Just past the spec's 20 s answer timeout, so a station with defaults resends. */
export const DEFAULT_DELAY_MS = 21_000;
export const DEFAULT_MALFORMED_BODY: unknown = { type: 'box-open' };
export const DEFAULT_NON_JSON_BODY = 'OK <not json>';
export const DEFAULT_EXTRA_FIELDS: Readonly<Record<string, unknown>> = { serverVersion: 'sim-2.0', _links: { self: '/x' }, hint: null };
/** A box of no station (a valid lowercase UUIDv4), for `foreign-box`. */
export const FOREIGN_BOX_ID = '0f0f0f0f-dead-4bad-8bad-f0f0f0f0f0f0';
export const DEFAULT_UNKNOWN_COMMAND = 'frobnicate';
/** Several times any sane answer, far below what a 64-bit Node can hold. */
export const DEFAULT_HUGE_BYTES = 4 * 1024 * 1024;
export const HTML_502_BODY =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export function normalizeFault(spec: FaultSpec): Fault {
  if (typeof spec !== 'string') return spec;
  switch (spec) {
    case 'delay':
      return { kind: 'delay', ms: DEFAULT_DELAY_MS };
    case 'exception':
      return { kind: 'exception', status: 404, exceptionType: 'InvalidPinException' };
    case 'drop':
    case 'reset':
    case 'truncated':
    case 'huge':
    case 'exception500':
    case 'status':
    case 'html502':
    case 'redirect':
    case 'empty':
    case 'non-json':
    case 'malformed':
    case 'unknown-command':
    case 'foreign-box':
    case 'extra-fields':
      return { kind: spec };
  }
}

/** Whether the server acts on the request before the fault hits (then a resend must get the same answer). */
export function faultProcesses(fault: Fault): boolean {
  switch (fault.kind) {
    case 'delay':
    case 'reset':
    case 'truncated':
    case 'huge':
    case 'extra-fields':
      return true;
    case 'drop':
      return fault.processed ?? true;
    case 'exception500':
    case 'exception':
    case 'status':
    case 'html502':
    case 'redirect':
    case 'empty':
    case 'non-json':
    case 'malformed':
    case 'unknown-command':
    case 'foreign-box':
      return false;
  }
}

export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** What the request record shows as the response. */
  readonly recorded: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The response of a fault that replaces the server's answer; null for the ones that wrap it. */
export function replacementResponse(fault: Fault, endpoint: Endpoint, path: string): RawResponse | null {
  const json = (status: number, body: unknown): RawResponse => ({ status, contentType: 'application/json', text: JSON.stringify(body), recorded: body });
  switch (fault.kind) {
    case 'exception500':
      return json(500, exceptionBody('IllegalStateException', 'injected fault', fault.displayMessages));
    case 'status': {
      const text = fault.body ?? 'Service Unavailable';
      return { status: fault.status ?? 503, contentType: fault.contentType ?? 'text/plain', text, recorded: text };
    }
    case 'exception': {
      const body = exceptionBody(fault.exceptionType, 'injected exception', fault.displayMessages);
      return { status: fault.status, contentType: 'application/json', text: JSON.stringify(body), recorded: body };
    }
    case 'html502':
      return { status: 502, contentType: 'text/html', text: HTML_502_BODY, recorded: HTML_502_BODY };
    case 'redirect': {
      const location = fault.location ?? `https://library.example${path}`;
      const text = `<html><body>Moved to <a href="${location}">${location}</a></body></html>`;
      return { status: fault.status ?? 307, contentType: 'text/html', text, recorded: text, headers: { location } };
    }
    case 'empty':
      return { status: 200, contentType: 'application/json', text: '', recorded: '' };
    case 'non-json': {
      const text = fault.body ?? DEFAULT_NON_JSON_BODY;
      return { status: 200, contentType: 'text/plain', text, recorded: text };
    }
    case 'malformed': {
      const text = fault.raw ?? JSON.stringify(fault.body === undefined ? DEFAULT_MALFORMED_BODY : fault.body);
      return { status: 200, contentType: 'application/json', text, recorded: fault.raw ?? fault.body ?? DEFAULT_MALFORMED_BODY };
    }
    case 'unknown-command':
      return json(200, { type: fault.type ?? DEFAULT_UNKNOWN_COMMAND, displayMessages: ['Injected unknown command'] });
    case 'foreign-box': {
      const boxes = [fault.boxId ?? FOREIGN_BOX_ID];
      const opens = endpoint === 'item-identify' || endpoint === 'pin-enter';
      return json(
        200,
        opens
          ? { type: 'box-open', boxes, displayMessages: ['Box opens'] }
          : { type: 'wait-for-closing', boxes, cancellable: false, displayMessages: ['Close the box'] },
      );
    }
    case 'delay':
    case 'drop':
    case 'reset':
    case 'truncated':
    case 'huge':
    case 'extra-fields':
      return null;
  }
}

/**
 * The server's own answer as a wrapping fault sends it: `cutAfter` bytes of the body are written
 * before the socket is destroyed (reset); the body itself is cut (truncated) or padded (huge).
 */
export function wrappedResponse(fault: Fault, status: number, body: object): RawResponse & { readonly cutAfter?: number } {
  const plain = (b: object): RawResponse => ({ status, contentType: 'application/json', text: JSON.stringify(b), recorded: b });
  switch (fault.kind) {
    case 'extra-fields':
      return plain(withExtraFields(body, fault.fields));
    case 'truncated': {
      const full = JSON.stringify(body);
      const text = full.slice(0, Math.max(1, Math.floor(full.length / 2)));
      return { status, contentType: 'application/json', text, recorded: text };
    }
    case 'reset': {
      const r = plain(body);
      return { ...r, cutAfter: Math.max(1, Math.floor(Buffer.byteLength(r.text) / 2)) };
    }
    case 'huge': {
      const bytes = fault.bytes ?? DEFAULT_HUGE_BYTES;
      const bare = JSON.stringify({ ...body, padding: '' });
      const padding = 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(bare)));
      // Unknown field first, like extra-fields: it never replaces a field of the real answer.
      const text = JSON.stringify({ padding, ...body });
      return { status, contentType: 'application/json', text, recorded: { ...body, padding: `(${padding.length} bytes of padding)` } };
    }
    case 'delay':
    case 'drop':
    case 'exception500':
    case 'exception':
    case 'status':
    case 'html502':
    case 'redirect':
    case 'empty':
    case 'non-json':
    case 'malformed':
    case 'unknown-command':
    case 'foreign-box':
      return plain(body);
  }
}

/** Unknown fields first, so none of them can replace a field of the real answer. */
export function withExtraFields(body: object, fields: Readonly<Record<string, unknown>> = DEFAULT_EXTRA_FIELDS): object {
  return { ...fields, ...body };
}

interface Armed {
  readonly fault: Fault;
  /** Requests left to hit; Infinity until cleared. */
  remaining: number;
}

/** One fault per target; an endpoint's own fault wins over '*'. */
export class FaultTable {
  readonly #armed = new Map<FaultTarget, Armed>();

  set(target: FaultTarget, spec: FaultSpec, times = Infinity): void {
    if (!(times > 0)) throw new RangeError(`fault times must be > 0, got ${times}`);
    this.#armed.set(target, { fault: normalizeFault(spec), remaining: times });
  }

  clear(): void {
    this.#armed.clear();
  }

  /** The fault for this request, counting it as used. */
  take(endpoint: Endpoint): Fault | null {
    for (const target of [endpoint, '*'] as const) {
      const armed = this.#armed.get(target);
      if (armed === undefined) continue;
      armed.remaining -= 1;
      if (armed.remaining <= 0) this.#armed.delete(target);
      return armed.fault;
    }
    return null;
  }

  list(): { target: FaultTarget; fault: Fault; remaining: number | null }[] {
    return [...this.#armed].map(([target, a]) => ({ target, fault: a.fault, remaining: Number.isFinite(a.remaining) ? a.remaining : null }));
  }
}

const faultSchema: z.ZodMiniType<Fault> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delay'), ms: z.number().check(z.int(), z.minimum(0), z.maximum(600_000)) }),
  z.object({ kind: z.literal('drop'), processed: z.optional(z.boolean()) }),
  z.object({ kind: z.literal('reset') }),
  z.object({ kind: z.literal('truncated') }),
  z.object({
    kind: z.literal('huge'),
    bytes: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(64 * 1024 * 1024))),
  }),
  z.object({ kind: z.literal('exception500'), displayMessages: z.optional(z.array(z.string())) }),
  z.object({
    kind: z.literal('exception'),
    status: z.number().check(z.int(), z.minimum(400), z.maximum(599)),
    exceptionType: z.enum(Object.keys(EXCEPTION_MESSAGES) as [ExceptionType, ...ExceptionType[]]),
    displayMessages: z.optional(z.array(z.string())),
  }),
  z.object({
    kind: z.literal('status'),
    status: z.optional(z.number().check(z.int(), z.minimum(200), z.maximum(599))),
    contentType: z.optional(z.string()),
    body: z.optional(z.string()),
  }),
  z.object({ kind: z.literal('html502') }),
  z.object({ kind: z.literal('redirect'), status: z.optional(z.number().check(z.int(), z.minimum(300), z.maximum(399))), location: z.optional(z.string()) }),
  z.object({ kind: z.literal('empty') }),
  z.object({ kind: z.literal('non-json'), body: z.optional(z.string()) }),
  z.object({ kind: z.literal('malformed'), body: z.optional(z.unknown()), raw: z.optional(z.string()) }),
  z.object({ kind: z.literal('unknown-command'), type: z.optional(z.string()) }),
  z.object({ kind: z.literal('foreign-box'), boxId: z.optional(z.string()) }),
  z.object({ kind: z.literal('extra-fields'), fields: z.optional(z.record(z.string(), z.unknown())) }),
]);

/** A fault request of the control API: `{endpoint, fault, times?}`, fault a kind name or an object. */
export const faultRequestSchema = z.object({
  endpoint: z.enum(['state', 'item-identify', 'pin-enter', 'cancel', '*'] as const satisfies readonly FaultTarget[]),
  fault: z.union([z.enum(FAULT_KINDS as [FaultKind, ...FaultKind[]]), faultSchema]),
  times: z.optional(z.number().check(z.int(), z.minimum(1))),
});
