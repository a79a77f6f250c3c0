/**
 * Technician-port harness: the integration harness (real station on simulated hardware against the
 * reference server over real HTTP) plus the technician port on 127.0.0.1, started the way the
 * daemon starts it (startSupervised), with a read and a service token and a config file on disk
 * for reload.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStation } from '../../src/app.js';
import { loadConfigFile } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { startSupervised, type Supervised } from '../../src/supervised.js';
import { SseParser } from '../../src/edge/sse.js';
import { LogRing } from '../../src/log.js';
import { STATION, waitFor } from './shared.js';
import { startHarness, type Harness, type HarnessOverrides } from './harness.js';

export interface DebugHarness {
  readonly h: Harness;
  readonly wp: Supervised;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly tokens: { readonly read: string; readonly service: string; readonly metrics: string };
  readonly ring: LogRing;
  /** A temp dir holding config.json (what reload reads) and the password file. */
  readonly dir: string;
  readonly configFile: string;
  /** The config as written to configFile (edit and write back to test reload). */
  readonly configInput: ConfigInput & { station: { passwordFile: string } };
  /** Fetch a path of the port with a token (null: none). */
  call(
    method: string,
    path: string,
    opts?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }>;
  stop(): Promise<void>;
}

export async function startDebugHarness(
  overrides: Omit<HarnessOverrides, 'ring' | 'technician'> & { technician?: Omit<NonNullable<ConfigInput['technician']>, 'tokens'> } = {},
): Promise<DebugHarness> {
  const tokens = { read: newToken(), service: newToken(), metrics: newToken() };
  const ring = new LogRing(500);
  const technician = {
    listen: { host: '127.0.0.1', port: 0 },
    ...overrides.technician,
    tokens: [
      { name: 'reader-tech', scope: 'read' as const, hash: hashToken(tokens.read) },
      { name: 'alice', scope: 'service' as const, hash: hashToken(tokens.service) },
      { name: 'prometheus', scope: 'metrics' as const, hash: hashToken(tokens.metrics) },
    ],
  };
  const h = await startHarness({ ...overrides, technician, ring });
  const dir = mkdtempSync(join(tmpdir(), 'techport-'));
  const passwordFile = join(dir, 'station-password');
  writeFileSync(passwordFile, STATION.password);
  const configFile = join(dir, 'config.json');
  const configInput = { ...h.config, station: { ...h.config.station, passwordFile } } as DebugHarness['configInput'];
  writeFileSync(configFile, JSON.stringify(configInput, null, 2));
  // What the supervisor runs is the file as written (its version, its passwordFile), as in the daemon.
  const wp = await startSupervised({
    station: h.station,
    loaded: loadConfigFile(configFile, {}),
    configFile,
    env: {},
    log: h.log,
    ring,
    start: (l, signal) => startStation({ config: l.config, password: l.password, log: h.log, signal }),
    onFatal: (e) => {
      throw e;
    },
  });
  const url = wp.port?.url;
  if (!url) throw new Error('technician port did not start');
  return {
    h,
    wp,
    url,
    tokens,
    ring,
    dir,
    configFile,
    configInput,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const token = opts.token === undefined ? tokens.service : opts.token;
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON (the page)
      }
      return { status: res.status, body: parsed, text, headers: res.headers };
    },
    async stop() {
      await wp.stop();
      await h.stop();
    },
  };
}

/** Wait until the station waits for input with nothing in flight. */
export const idle = (d: DebugHarness): Promise<true> =>
  waitFor('idle', () => {
    const s = d.wp.supervisor.station.runtime.snapshot();
    return s.mode.kind === 'idle' && s.inFlight === null;
  });

export interface StreamReader {
  readonly events: { readonly event: string; readonly data: Record<string, unknown> & { type?: string } }[];
  /** Comment lines seen (": connected", ": keep-alive"). */
  readonly comments: string[];
  close(): void;
}

/** Read a server-sent event stream of the port the way the page does (fetch + streaming reader). */
export async function readStream(d: DebugHarness, path: string, token = d.tokens.read): Promise<StreamReader> {
  const ctl = new AbortController();
  const res = await fetch(d.url + path, { headers: { authorization: `Bearer ${token}` }, signal: ctl.signal });
  if (res.status !== 200 || !res.body) throw new Error(`stream ${path}: HTTP ${res.status}`);
  const out: StreamReader = { events: [], comments: [], close: () => ctl.abort() };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser((line) => out.comments.push(line));
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        for (const e of parser.push(decoder.decode(value, { stream: true }))) out.events.push({ event: e.event, data: e.data as Record<string, unknown> });
      }
    } catch {
      // aborted
    }
  })();
  return out;
}
