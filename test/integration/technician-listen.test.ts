/**
 * Where the technician port listens: a unix socket (mode 0600), a stale socket file from an earlier
 * run replaced, a live one or a file that is not a socket left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { technicianConfigSchema } from '../../src/config/technician.js';
import { listenTechnicianPort } from '../../src/technician/server.js';

const plain = (): Server => createServer((_q, r) => r.end('ok'));
const fetchOverSocket = (socketPath: string): Promise<string> =>
  new Promise((resolve, reject) => {
    request({ socketPath, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });

describe('listening on a unix socket', () => {
  it('creates the socket with mode 0600 and removes it on close', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sock-')), 't.sock');
    const port = await listenTechnicianPort(plain(), technicianConfigSchema.parse({ listen: { socket: path } }));
    expect(port.address).toBe(`unix:${path}`);
    expect(port.url).toBeNull();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await port.close();
    expect(existsSync(path)).toBe(false);
  });

  it('replaces a stale socket file; refuses a live socket and a path that is not a socket', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sock-'));
    // A stale socket: its process exited without removing it (as after a crash).
    const stale = join(dir, 'stale.sock');
    spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => process.exit(0))`]);
    expect(lstatSync(stale).isSocket()).toBe(true);
    const port = await listenTechnicianPort(plain(), technicianConfigSchema.parse({ listen: { socket: stale } }));
    expect((await fetchOverSocket(stale)).trim()).toBe('ok');
    // Now it is live: a second port must not steal it.
    await expect(listenTechnicianPort(plain(), technicianConfigSchema.parse({ listen: { socket: stale } }))).rejects.toThrow(/another process is listening/);
    await port.close();

    const notSocket = join(dir, 'config.json');
    writeFileSync(notSocket, '{"important":true}');
    await expect(listenTechnicianPort(plain(), technicianConfigSchema.parse({ listen: { socket: notSocket } }))).rejects.toThrow(/not a socket/);
    expect(readFileSync(notSocket, 'utf8')).toBe('{"important":true}');
  });
});
