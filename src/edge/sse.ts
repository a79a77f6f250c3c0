/**
 * Server-sent events over a plain response, for every port (the technician's live streams, the
 * kiosk page's state). Each stream gets a keep-alive comment while idle, and `onClose` runs exactly
 * once however it ends (client gone, server stopping, client too slow), so every subscription a
 * stream holds is released.
 *
 * Backpressure: a client that stops reading (a laptop asleep during `stationctl logs -f`, a page
 * that never reads on purpose) would make every event pile up in the response's buffer for as long
 * as the socket stays open. Each write is checked first: when what the stream holds unsent plus
 * the event would pass `maxBufferedBytes`, the stream is dropped instead — the socket reset (its
 * buffers freed at once: `end()` would queue behind the unsent data, and a plain close leaves the
 * kernel holding it, an orphan behind a window the client never opens) and `onDrop` says so.
 *
 * What "holds" counts: what Node has not handed to the kernel (`writableLength`) and, with
 * `countKernelQueue`, what the kernel has not had acknowledged (send-queue.ts). A port on loopback
 * counts both — a local client that stops reading lets the kernel's send buffer grow to megabytes
 * first, and that memory is the station's; a port reached over a network counts only Node's, since
 * its kernel buffers hold what is in flight to a client that reads, however slowly.
 *
 * Clients authenticate with the Authorization header like every other call: pages read the stream
 * with fetch() and a streaming reader, because EventSource cannot send headers and a long-lived
 * credential must never travel in a URL.
 */
import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './http.js';
import { kernelSendQueue } from './send-queue.js';

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

/** Why a stream was dropped: what it held (Node's unsent + the kernel's) and the event that did not fit. */
export interface SseDrop {
  readonly held: number;
  readonly queued: number;
  readonly kernel: number;
  readonly adding: number;
  readonly bound: number;
}

export interface SseLimits {
  readonly keepAliveMs: number;
  /** Bytes a stream may hold for its client before it is dropped (the port's streamBufferBytes). */
  readonly maxBufferedBytes: number;
  /** Count the kernel's unacknowledged bytes too (a loopback port: see above). */
  readonly countKernelQueue?: boolean;
  /** Headers beside the common ones (a page's Content-Security-Policy). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Told once when the stream is dropped for a client that does not read. */
  readonly onDrop?: (drop: SseDrop) => void;
}

export function openSse(res: ServerResponse, limits: SseLimits): SseStream {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    ...limits.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
    // Tells a reverse proxy (nginx) not to buffer the stream.
    'x-accel-buffering': 'no',
  });
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
  const socket = res.socket;
  /**
   * The kernel's unacknowledged bytes when last read from /proc/net/tcp, plus every byte written
   * since: never less than what the kernel holds now (acknowledgements only shrink it), so the table
   * (one line per socket of the machine) is read again only when this bound would pass the limit.
   */
  let kernelAtMost = 0;
  const drop = (d: SseDrop, reset: boolean): void => {
    finish();
    if (reset && socket !== null && !socket.destroyed) socket.resetAndDestroy();
    else res.destroy();
    limits.onDrop?.(d);
  };
  const write = (text: string): void => {
    if (closed) return;
    const adding = Buffer.byteLength(text);
    if (limits.countKernelQueue !== true) {
      // Node's part only: written, then checked. writableLength is what neither the response nor
      // its socket has handed to the kernel yet (res.write's boolean only says "above the 16 KiB
      // high-water mark": too eager to drop on).
      res.write(text);
      const unsent = res.writableLength;
      if (unsent > bound) drop({ held: unsent - adding, queued: unsent - adding, kernel: 0, adding, bound }, false);
      return;
    }
    // Node's and the kernel's: checked first, so that neither ever holds more than the bound. What
    // the kernel gets is the event in HTTP/1.1's chunked framing (its size in hex and two CRLFs):
    // counted too, or the estimate falls behind the kernel's own figure by a few bytes a write.
    const framed = adding + adding.toString(16).length + 4;
    let queued = res.writableLength;
    if (queued + kernelAtMost + framed > bound && socket?.localPort !== undefined && socket.remotePort !== undefined) {
      kernelAtMost = kernelSendQueue(socket.localPort, socket.remotePort) ?? 0;
      queued = res.writableLength;
    }
    if (queued + kernelAtMost + framed > bound) return drop({ held: queued + kernelAtMost, queued, kernel: kernelAtMost, adding, bound }, true);
    res.write(text);
    kernelAtMost += framed;
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), limits.keepAliveMs);
  keepAlive.unref();
  // The response's 'close' (not the request's: that fires once a GET's empty body is read).
  res.on('close', finish);
  res.on('error', finish);
  write(': connected\n\n');
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
