/**
 * The kiosk port is the kiosk's or nobody's, on the real daemon:
 *
 * - Without the socket systemd holds (and without the development switch) the daemon does not
 *   serve the kiosk: the port stays unbound, the log says why, the technician status names it as
 *   the display's health; the station itself runs.
 * - Socket-activated, a new secret (the socket unit started again writes a new hash; stopped, it
 *   removes it): the kiosk's open event stream is closed at once, the old secret gets 401 on its
 *   next key, the new one is taken.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { kioskSecretHash } from '../../src/devices/kiosk/secret.js';
import { KioskDaemon } from '../support/kiosk-daemon.js';
import { waitFor } from '../support/shared.js';

let k: KioskDaemon | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

function post(kiosk: KioskDaemon, secret: string, key: string): Promise<number> {
  const body = JSON.stringify({ key });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: kiosk.port,
        path: '/key',
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Whether anything accepts a connection on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Write the hash file as kiosk-secret.sh does: a new file renamed into place. */
function writeHash(file: string, secret: string): void {
  writeFileSync(`${file}.new`, `${kioskSecretHash(secret)}\n`);
  renameSync(`${file}.new`, file);
}

describe('the kiosk port is the kiosk’s or nobody’s', () => {
  it('without the socket systemd holds: not served, the port left unbound, the log and the technician status say why', async () => {
    k = await KioskDaemon.start({ activated: false, ownPort: false });
    expect(await listening(k.port)).toBe(false);
    const refused = k.logs().find((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('the kiosk page is not served'));
    expect(refused).toBeDefined();
    expect(refused!['level']).toBe(50);
    expect(refused!['msg']).toContain('pickup-station-kiosk.socket');
    expect(k.logs().some((l) => l['msg'] === 'kiosk page listening')).toBe(false);
    const status = await k.rig.statusUntil(
      (s) => (s['devices'] as { name: string; ok: boolean }[]).some((d) => d.name.startsWith('display (kiosk page') && !d.ok),
      'the kiosk display unhealthy in the status',
    );
    const display = (status['devices'] as { name: string; ok: boolean; detail: string | null }[]).find((d) => d.name.startsWith('display (kiosk page'));
    expect(display?.detail).toContain('not served');
    expect(display?.detail).toContain('pickup-station-kiosk.socket');
  }, 90_000);

  it('a new secret closes the stream that proved itself with the old one at once; the old secret gets 401, the new one is taken; a removed one refuses all', async () => {
    k = await KioskDaemon.start({ activated: true });
    const kiosk = k;
    expect(await post(kiosk, kiosk.secret, '1')).toBe(204);
    let ended = false;
    let events = 0;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: kiosk.port, path: '/events', headers: { authorization: `Bearer ${kiosk.secret}` }, agent: false },
        resolve,
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    res.on('data', (d: Buffer) => (events += d.toString().split('event: state').length - 1));
    res.on('close', () => (ended = true));
    res.on('error', () => (ended = true));
    await waitFor('the first state', () => events > 0);

    const next = randomBytes(32).toString('hex');
    writeHash(kiosk.hashFile, next);
    await waitFor('the old stream closed by the station', () => ended);
    // The daemon's log comes through its stdout pipe, which may trail the socket's close.
    const secretChanged = () => kiosk.logs().find((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('kiosk page: the kiosk secret changed'));
    await waitFor('the station says the secret changed', () => secretChanged() !== undefined);
    const changed = secretChanged();
    expect(changed!['streams']).toBe(1);
    expect(await post(kiosk, kiosk.secret, '2')).toBe(401);
    expect(await post(kiosk, next, '3')).toBe(204);

    // The socket unit stopped: the hash removed. Nothing is taken, not even the newest secret.
    rmSync(kiosk.hashFile);
    expect(await post(kiosk, next, '4')).toBe(401);
  }, 90_000);
});
