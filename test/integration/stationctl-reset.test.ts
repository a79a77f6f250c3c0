/**
 * Under a connection flood the technician port closes sockets that carry no authenticated request
 * yet (src/edge/connections.ts). stationctl's GETs survive that: a connection reset before any
 * answer is retried; a POST (maybe an action already carried out) is never sent twice.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PortClient } from '../../src/cli/technician/client.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A port that resets the first `resets` connections as soon as they arrive, then answers. */
async function resettingPort(resets: number): Promise<{ url: string; requests: () => number; connections: () => number }> {
  let connections = 0;
  let requests = 0;
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    if (connections <= resets) socket.resetAndDestroy();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, connections: () => connections };
}

describe('stationctl client: a connection reset before any answer', () => {
  it('a GET is sent again and answers', async () => {
    const port = await resettingPort(2);
    const client = new PortClient({ kind: 'url', url: port.url }, 'pst_test');
    await expect(client.call('GET', '/api/status')).resolves.toEqual({ ok: true });
    expect(port.connections()).toBe(3);
    expect(port.requests()).toBe(1);
  });

  it('a GET gives up after its retries with the reset named', async () => {
    const port = await resettingPort(100);
    const client = new PortClient({ kind: 'url', url: port.url }, 'pst_test');
    await expect(client.call('GET', '/api/status')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(port.connections()).toBe(4);
  });

  it('a POST is never sent twice', async () => {
    const port = await resettingPort(1);
    const client = new PortClient({ kind: 'url', url: port.url }, 'pst_test');
    await expect(client.call('POST', '/api/boxes/1/open', {})).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(port.connections()).toBe(1);
  });
});
