/** Answering over node:http, as both servers of this code base answer (the technician port, the reference station server). */
import type { ServerResponse } from 'node:http';

export function sendText(res: ServerResponse, status: number, contentType: string, text: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A JSON body with its length (no chunked encoding for a few hundred bytes). The reference server
 * answers the spec's bare `application/json`; the technician port names its charset.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  contentType = 'application/json',
): void {
  sendText(res, status, contentType, JSON.stringify(body), headers);
}
