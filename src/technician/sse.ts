/**
 * Server-sent events over a plain response. Each stream gets a keep-alive comment while idle,
 * and `onClose` runs exactly once however it ends (client gone, server stopping, client too slow),
 * so every subscription a stream holds is released.
 *
 * Backpressure: a client that stops reading (a laptop asleep during `stationctl logs -f`, or one
 * that never reads on purpose) would make every event pile up in the response's buffer for as
 * long as the socket stays open. Once the unsent data passes `maxBufferedBytes` the stream is
 * dropped instead: the socket is destroyed (its buffer freed at once) and `onDrop` says so. A
 * client that reads, however slowly, never gets near the bound: the kernel's socket buffers hold
 * what is in flight, and only what they cannot take is counted.
 *
 * Clients authenticate with the Authorization header like every other call: the page reads the
 * stream with fetch() and a streaming reader, because EventSource cannot send headers and a
 * long-lived token must never travel in a URL.
 */
import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './http.js';

export interface SseStream {
  /** Send one event; JSON-encoded data on one `data:` line. */
  send(event: string, data: unknown): void;
  /**
   * Send what the client asked to see first (the log tail): its bytes are added to this stream's
   * bound, so a large backlog written in one go is not mistaken for a client that stopped reading.
   */
  sendBacklog(event: string, items: readonly unknown[]): void;
  /** End the stream (runs onClose). */
  close(): void;
  /** Register cleanup; runs once when the stream ends for any reason. */
  onClose(fn: () => void): void;
}

export interface SseLimits {
  readonly keepAliveMs: number;
  /** Unsent bytes past which the stream is dropped (debug.streamBufferBytes). */
  readonly maxBufferedBytes: number;
  /** Told once when the stream is dropped for a client that does not read. */
  readonly onDrop?: (unsentBytes: number) => void;
}

export function openSse(res: ServerResponse, limits: SseLimits): SseStream {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
    // Tells a reverse proxy (nginx) not to buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');
  const cleanups: (() => void)[] = [];
  let closed = false;
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    for (const fn of cleanups.splice(0)) fn();
    if (!res.writableEnded) res.end();
  };
  let bound = limits.maxBufferedBytes;
  const write = (text: string): void => {
    if (closed) return;
    res.write(text);
    // writableLength: what neither the response nor its socket has handed to the kernel yet.
    // (res.write's boolean only says "above the 16 KiB high-water mark": too eager to drop on.)
    const unsent = res.writableLength;
    if (unsent <= bound) return;
    finish();
    // end() above would queue behind the unsent data; destroy frees it now.
    res.destroy();
    limits.onDrop?.(unsent);
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), limits.keepAliveMs);
  keepAlive.unref();
  // The response's 'close' (not the request's: that fires once a GET's empty body is read).
  res.on('close', finish);
  res.on('error', finish);
  return {
    send(event, data) {
      if (closed) return;
      write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    sendBacklog(event, items) {
      const texts = items.map((data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      bound += texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
      for (const t of texts) write(t);
    },
    close: finish,
    onClose(fn) {
      if (closed) fn();
      else cleanups.push(fn);
    },
  };
}

/** One parsed server-sent event (data is the JSON of its `data:` line). */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * Incremental parser for the streams above (stationctl, tests): feed text as it arrives, get the
 * complete events. Comment lines (keep-alives) are passed to `onComment` if given, else skipped.
 */
export class SseParser {
  private buf = '';
  constructor(private readonly onComment?: (line: string) => void) {}

  push(text: string): SseEvent[] {
    this.buf += text;
    const out: SseEvent[] = [];
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.onComment?.(line);
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data !== '') out.push({ event, data: JSON.parse(data) as unknown });
    }
    return out;
  }
}
