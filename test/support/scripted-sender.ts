/**
 * A protocol sender for runtime unit tests under fake timers: records each event and answers it
 * from a script (a function of the request). Integration tests use the real HTTP client and the
 * reference server instead.
 */
import type { ProtocolSender, SendOutcome } from '../../src/protocol/client.js';
import type { Endpoint, RequestBodies, ServerAnswer } from '../../src/protocol/types.js';

export type Script = (endpoint: Endpoint, body: RequestBodies[Endpoint]) => ServerAnswer | 'unanswered';

export class ScriptedSender implements ProtocolSender {
  readonly sent: { endpoint: Endpoint; body: RequestBodies[Endpoint] }[] = [];
  constructor(public script: Script) {}
  send<E extends Endpoint>(endpoint: E, body: RequestBodies[E]): Promise<SendOutcome> {
    this.sent.push({ endpoint, body });
    const answer = this.script(endpoint, body);
    const attempts = [{ attempt: 1, traceId: 'trace', status: 200, answered: answer !== 'unanswered', error: null, ms: 1 }];
    return Promise.resolve({
      eventId: body.event,
      endpoint,
      attempts,
      result: answer === 'unanswered' ? { kind: 'unanswered', reason: 'scripted' } : { kind: 'answered', answer },
    });
  }
  of<E extends Endpoint>(endpoint: E): RequestBodies[E][] {
    return this.sent.filter((s) => s.endpoint === endpoint).map((s) => s.body as RequestBodies[E]);
  }
}

export const waitForInput: ServerAnswer = { kind: 'command', command: { type: 'wait-for-input', displayMessages: ['Scan or PIN'] } };

/**
 * A server that never answers: every event ends unanswered after `ms` (the HTTP client's
 * attempts x answerTimeout), or at once with "aborted" when the runtime aborts it (a stop).
 */
export class DeadServer implements ProtocolSender {
  constructor(private readonly ms: number) {}
  send<E extends Endpoint>(endpoint: E, body: RequestBodies[E], signal?: AbortSignal): Promise<SendOutcome> {
    return new Promise((resolve) => {
      const done = (reason: string) => resolve({ eventId: body.event, endpoint, attempts: [], result: { kind: 'unanswered', reason } });
      const onAbort = () => (clearTimeout(t), done('aborted'));
      const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), done('connect ECONNREFUSED')), this.ms);
      signal?.addEventListener('abort', onAbort);
    });
  }
}
