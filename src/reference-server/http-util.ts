/** Small node:http helpers shared by the protocol and control handlers. */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Far above any protocol body (a /state of 999 boxes is ~50 KiB); guards against a runaway client. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** The body as text, or null when it exceeded the limit (the rest is drained, not buffered). */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size <= limit) chunks.push(buf);
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}

export { sendJson, sendText } from '../http-json.js';

/** Header values as single strings; the password never reaches a record or a log line. */
export function recordHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const v = Array.isArray(value) ? value.join(', ') : value;
    out[name] = name === 'authorization' ? (/^basic\s/i.test(v) ? 'Basic ***' : '***') : v;
  }
  return out;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function parseJsonOrText(text: string): unknown {
  const parsed = parseJson(text);
  return parsed.ok ? parsed.value : text;
}

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
