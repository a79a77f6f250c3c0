/**
 * Classifies a server's HTTP response (pure). Three outcomes:
 * - an answer: a valid command (HTTP 200) or the protocol's exception body (any status);
 * - an invalid answer: HTTP 200 JSON that is not a valid command (no box is opened, the next
 *   /state reports it);
 * - unanswered (thrown UnansweredError): anything that is not the protocol's — non-JSON, an HTML
 *   502 from a proxy, a non-200 status without the exception body. The caller resends those.
 *
 * Unknown fields are ignored everywhere (spec, general rule 1).
 */
import { UnansweredError } from '../errors.js';
import { maskText } from '../mask.js';
import { answerShapes } from './shapes.js';
import type { ServerAnswer } from './types.js';

export function parseServerResponse(status: number, contentType: string | undefined, body: string): ServerAnswer {
  if (status >= 300 && status < 400) throw new UnansweredError(`HTTP ${status}: a redirect, not followed (the station talks to server.baseUrl only)`, status);
  if (body.trim() === '') throw new UnansweredError(`HTTP ${status} ${contentType ?? 'without content type'}: empty body`, status);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new UnansweredError(`HTTP ${status} ${contentType ?? 'without content type'}: not JSON`, status);
  }
  const schemas = answerShapes();
  const exception = schemas.exception.safeParse(json);
  if (exception.success) {
    return { kind: 'exception', status, exceptionType: exception.data.exceptionType, displayMessages: exception.data.displayMessages };
  }
  if (status !== 200) throw new UnansweredError(`HTTP ${status} without the protocol's exception body`, status);
  const command = schemas.command.safeParse(json);
  if (!command.success) {
    const issue = command.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    // The reason is logged and kept in the status: a server's value quoted in it is masked (src/mask.ts).
    return { kind: 'invalid', reason: maskText(`malformed command: ${where}${issue?.message ?? 'invalid'}`) };
  }
  return { kind: 'command', command: command.data };
}
