/**
 * Injected faults: what a station meets in the field between itself and the library server
 * (slow server, lost answers, proxies, broken deployments). Pure apart from FaultTable's counters.
 */
import * as z from 'zod';
import type { Endpoint } from '../protocol/types.js';
import { EXCEPTION_MESSAGES, exceptionBody, type ExceptionType } from './messages.js';
import type { Fault, FaultKind, FaultSpec, FaultTarget } from './types.js';

export const FAULT_KINDS: readonly FaultKind[] = ['delay', 'drop', 'exception500', 'exception', 'html502', 'non-json', 'malformed', 'extra-fields'];

/** Just past the spec's 20 s answer timeout, so a station with defaults resends. */
export const DEFAULT_DELAY_MS = 21_000;
export const DEFAULT_MALFORMED_BODY: unknown = { type: 'box-open' };
export const DEFAULT_NON_JSON_BODY = 'OK <not json>';
export const DEFAULT_EXTRA_FIELDS: Readonly<Record<string, unknown>> = { serverVersion: 'sim-2.0', _links: { self: '/x' }, hint: null };
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
    case 'exception500':
    case 'html502':
    case 'non-json':
    case 'malformed':
    case 'extra-fields':
      return { kind: spec };
  }
}

/** Whether the server acts on the request before the fault hits (then a resend must get the same answer). */
export function faultProcesses(fault: Fault): boolean {
  switch (fault.kind) {
    case 'delay':
    case 'extra-fields':
      return true;
    case 'drop':
      return fault.processed ?? true;
    case 'exception500':
    case 'exception':
    case 'html502':
    case 'non-json':
    case 'malformed':
      return false;
  }
}

export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** What the request record shows as the response. */
  readonly recorded: unknown;
}

/** The response of a fault that replaces the server's answer; null for the ones that wrap it. */
export function replacementResponse(fault: Fault): RawResponse | null {
  switch (fault.kind) {
    case 'exception500': {
      const body = exceptionBody('IllegalStateException', 'injected fault', fault.displayMessages);
      return { status: 500, contentType: 'application/json', text: JSON.stringify(body), recorded: body };
    }
    case 'exception': {
      const body = exceptionBody(fault.exceptionType, 'injected exception', fault.displayMessages);
      return { status: fault.status, contentType: 'application/json', text: JSON.stringify(body), recorded: body };
    }
    case 'html502':
      return { status: 502, contentType: 'text/html', text: HTML_502_BODY, recorded: HTML_502_BODY };
    case 'non-json': {
      const text = fault.body ?? DEFAULT_NON_JSON_BODY;
      return { status: 200, contentType: 'text/plain', text, recorded: text };
    }
    case 'malformed': {
      const text = fault.raw ?? JSON.stringify(fault.body === undefined ? DEFAULT_MALFORMED_BODY : fault.body);
      return { status: 200, contentType: 'application/json', text, recorded: fault.raw ?? fault.body ?? DEFAULT_MALFORMED_BODY };
    }
    case 'delay':
    case 'drop':
    case 'extra-fields':
      return null;
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

const faultSchema: z.ZodType<Fault> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delay'), ms: z.number().int().min(0).max(600_000) }),
  z.object({ kind: z.literal('drop'), processed: z.boolean().optional() }),
  z.object({ kind: z.literal('exception500'), displayMessages: z.array(z.string()).optional() }),
  z.object({
    kind: z.literal('exception'),
    status: z.number().int().min(400).max(599),
    exceptionType: z.enum(Object.keys(EXCEPTION_MESSAGES) as [ExceptionType, ...ExceptionType[]]),
    displayMessages: z.array(z.string()).optional(),
  }),
  z.object({ kind: z.literal('html502') }),
  z.object({ kind: z.literal('non-json'), body: z.string().optional() }),
  z.object({ kind: z.literal('malformed'), body: z.unknown().optional(), raw: z.string().optional() }),
  z.object({ kind: z.literal('extra-fields'), fields: z.record(z.string(), z.unknown()).optional() }),
]);

/** A fault request of the control API: `{endpoint, fault, times?}`, fault a kind name or an object. */
export const faultRequestSchema = z.object({
  endpoint: z.enum(['state', 'item-identify', 'pin-enter', 'cancel', '*'] as const satisfies readonly FaultTarget[]),
  fault: z.union([z.enum(FAULT_KINDS as [FaultKind, ...FaultKind[]]), faultSchema]),
  times: z.number().int().min(1).optional(),
});
