/**
 * Every request the kiosk page refuses is counted by reason (`pickup_station_kiosk_refusals_total`),
 * on the real daemon, socket-activated as the field runs it: keys and streams without the secret,
 * another host, another page's origin, a body that is not JSON or not a key, a path the page does
 * not serve — each refused as before, each counted once, however the log lines are summarised. The
 * port outlives a reload, and so do its counts. The alert on them is promtool's
 * (ops/prometheus/tests/pickup-station.rules.test.yml).
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { KioskDaemon } from '../support/kiosk-daemon.js';
import { STATION } from '../support/shared.js';

let k: KioskDaemon | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

/** One request to the kiosk page; its status. */
function ask(kiosk: KioskDaemon, o: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: kiosk.port, path: o.path, method: o.method ?? 'GET', agent: false, headers: o.headers ?? {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The station's /metrics, through the technician port with the rig's service token. */
function metrics(kiosk: KioskDaemon): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: kiosk.rig.socket, path: '/metrics', headers: { authorization: `Bearer ${kiosk.rig.token}` } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
}

function refusals(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^pickup_station_kiosk_refusals_total\{station="([^"]+)",reason="([^"]+)"\} (\d+)$/gm)) {
    expect(m[1]).toBe(STATION.id);
    out[m[2]!] = Number(m[3]);
  }
  return out;
}

describe('kiosk refusals counted', () => {
  it('each refusal once by its reason, none for what the kiosk itself sends; the counts outlive a reload', async () => {
    k = await KioskDaemon.start({ activated: true });
    const kiosk = k;
    const json = { 'content-type': 'application/json' };
    const secret = { authorization: `Bearer ${kiosk.secret}` };
    const key = JSON.stringify({ key: '1' });
    // Before any refusal: every reason is there, at 0 (an alert's increase() needs the series from 0).
    expect(refusals(await metrics(kiosk))).toEqual({
      'no-secret': 0,
      'wrong-host': 0,
      'foreign-origin': 0,
      'not-json': 0,
      'bad-body': 0,
      'not-found': 0,
      evicted: 0,
    });

    // What the kiosk sends: a key and a help request with the secret. Nothing counted.
    expect(await ask(kiosk, { method: 'POST', path: '/key', headers: { ...json, ...secret }, body: key })).toBe(204);
    expect(await ask(kiosk, { path: '/' })).toBe(200);

    for (let i = 0; i < 3; i++) expect(await ask(kiosk, { method: 'POST', path: '/key', headers: json, body: key })).toBe(401);
    expect(await ask(kiosk, { path: '/events', headers: { authorization: `Bearer ${'0'.repeat(64)}` } })).toBe(401);
    for (let i = 0; i < 2; i++) expect(await ask(kiosk, { path: '/', headers: { host: 'rebound.example' } })).toBe(421);
    expect(await ask(kiosk, { method: 'POST', path: '/key', headers: { ...json, ...secret, origin: 'http://rebound.example' }, body: key })).toBe(403);
    expect(await ask(kiosk, { method: 'POST', path: '/key', headers: { 'content-type': 'text/plain', ...secret }, body: key })).toBe(415);
    expect(await ask(kiosk, { method: 'POST', path: '/key', headers: { ...json, ...secret }, body: '{"key":"x"}' })).toBe(400);
    for (let i = 0; i < 5; i++) expect(await ask(kiosk, { path: '/admin' })).toBe(404);

    const counted = refusals(await metrics(kiosk));
    expect(counted).toEqual({ 'no-secret': 4, 'wrong-host': 2, 'foreign-origin': 1, 'not-json': 1, 'bad-body': 1, 'not-found': 5, evicted: 0 });
    // The log summarises (one line for the first of each kind in its window); the counter does not.
    expect(kiosk.logs().filter((l) => l['refusal'] === 'no-secret')).toHaveLength(1);

    // A reload that restarts the station: the kiosk server is new, the port and its counts are not.
    kiosk.rig.configInput = { ...kiosk.rig.configInput, messages: { locale: 'cs' } };
    kiosk.rig.writeConfig();
    const r = await kiosk.rig.tech('POST', '/api/reload');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await ask(kiosk, { method: 'POST', path: '/key', headers: json, body: key })).toBe(401);
    expect(refusals(await metrics(kiosk))).toEqual({ ...counted, 'no-secret': 5 });
  }, 90_000);
});
