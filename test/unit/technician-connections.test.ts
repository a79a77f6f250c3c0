/**
 * ConnectionGuard's choice (src/edge/connections.ts), on stand-in sockets: which socket is closed
 * to make room. The real-socket proof is port-flood.test.ts.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionGuard } from '../../src/edge/connections.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(
    readonly remoteAddress: string | undefined,
    readonly name: string,
  ) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

function setup(maxConnections: number, maxConnectionsPerAddress: number) {
  const server = new EventEmitter();
  const evicted: string[] = [];
  const guard = new ConnectionGuard({ maxConnections, maxConnectionsPerAddress }, (a) => evicted.push(a));
  guard.attach(server as unknown as Server);
  const connect = (address: string | undefined, name: string): FakeSocket => {
    const s = new FakeSocket(address, name);
    server.emit('connection', s);
    return s;
  };
  return { guard, connect, evicted, sock: (s: FakeSocket) => s as unknown as Socket };
}

describe('ConnectionGuard', () => {
  it('per address: the least recently active unauthenticated socket of that address makes room', () => {
    const { connect, guard, sock } = setup(64, 2);
    const a1 = connect('10.0.0.1', 'a1');
    const a2 = connect('10.0.0.1', 'a2');
    const b1 = connect('10.0.0.2', 'b1');
    guard.active(sock(a1)); // a complete request head: a1 is now the freshest
    const a3 = connect('10.0.0.1', 'a3');
    expect([a1, a2, b1, a3].filter((s) => s.destroyed).map((s) => s.name)).toEqual(['a2']);
  });

  it('an authenticated request in progress is never closed to make room; released, it can be', () => {
    const { connect, guard, sock } = setup(64, 2);
    const a1 = connect('10.0.0.1', 'a1');
    const release = guard.authenticated(sock(a1));
    const a2 = connect('10.0.0.1', 'a2');
    const a3 = connect('10.0.0.1', 'a3');
    expect([a1, a2, a3].filter((s) => s.destroyed).map((s) => s.name)).toEqual([]);
    const a4 = connect('10.0.0.1', 'a4');
    expect([a1, a2, a3, a4].filter((s) => s.destroyed).map((s) => s.name)).toEqual(['a2']);
    release();
    release(); // idempotent
    connect('10.0.0.1', 'a5');
    expect(a1.destroyed).toBe(true);
  });

  it('in all: the oldest unauthenticated socket of any address; a newcomer is refused only when every slot is authenticated', () => {
    const { connect, guard, sock, evicted } = setup(3, 10);
    const x = connect('10.0.0.1', 'x');
    const y = connect('10.0.0.2', 'y');
    const z = connect(undefined, 'z'); // a unix socket client
    const w = connect('10.0.0.3', 'w');
    expect([x, y, z, w].filter((s) => s.destroyed).map((s) => s.name)).toEqual(['x']);
    for (const s of [y, z, w]) guard.authenticated(sock(s));
    const late = connect('10.0.0.4', 'late');
    expect(late.destroyed).toBe(true);
    expect(guard.counts()).toEqual({ open: 3, pending: 0 });
    expect(evicted).toEqual(['10.0.0.1']);
    expect(guard.evicted).toBe(1);
  });
});
