/**
 * When a station's first report is on the wire: a protocol sender that asks its client for the
 * write hook (`onWritten`) until the first request is written out, or its first send ended
 * without that. What loads after a start (the technician port, src/boot/start-order.ts) waits for
 * it, so that its loading does not delay the station's first /state (docs/decisions/0046).
 */
import type { Endpoint, RequestBodies } from './types.js';
import type { ProtocolSender, SendControl, SendOutcome } from './client.js';

export interface FirstWriteSender extends ProtocolSender {
  /** Resolves once the first request is written, its send ended without that, or settle() was called. */
  readonly firstWritten: Promise<void>;
  /** Resolve firstWritten now (the station stops). */
  settle(): void;
}

/** `client`, telling when its first request is written (a client that never reports writes: when its first send ends). */
export function watchFirstWrite(client: ProtocolSender): FirstWriteSender {
  let settled = false;
  let resolve: () => void = () => undefined;
  const firstWritten = new Promise<void>((r) => (resolve = r));
  const settle = (): void => {
    settled = true;
    resolve();
  };
  const sendFirst = async <E extends Endpoint>(
    endpoint: E,
    body: RequestBodies[E],
    signal: AbortSignal | undefined,
    control: SendControl,
  ): Promise<SendOutcome> => {
    const { onWritten } = control;
    const hooked: SendControl = {
      ...control,
      onWritten: (attempt) => {
        settle();
        onWritten?.(attempt);
      },
    };
    try {
      return await client.send(endpoint, body, signal, hooked);
    } finally {
      settle();
    }
  };
  return {
    firstWritten,
    settle,
    // Once settled, the client's own promise: nothing added to every later send (the scan path).
    send: (endpoint, body, signal, control = {}) => (settled ? client.send(endpoint, body, signal, control) : sendFirst(endpoint, body, signal, control)),
  };
}
