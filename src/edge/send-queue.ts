/**
 * What the kernel still holds for a TCP socket: the bytes written but not yet acknowledged by the
 * peer (`tx_queue` in /proc/net/tcp). Node tells only what it has not handed to the kernel yet
 * (`writableLength`); a peer that stops reading on loopback lets the kernel's send buffer grow to
 * megabytes first (tcp_wmem's autotuning), and that memory is the station's. Reading the kernel's
 * own table is the one way to bound both together.
 */
import { readFileSync } from 'node:fs';

/** A 127.0.0.1 or ::1 address:port pair as /proc/net/tcp{,6} writes it, e.g. "0100007F:1F9B". */
function portOf(field: string): number {
  return parseInt(field.slice(field.lastIndexOf(':') + 1), 16);
}

/** tx_queue of the connection local port → remote port in a /proc/net/tcp text, or null when it is not there. Pure. */
export function txQueueIn(table: string, localPort: number, remotePort: number): number | null {
  for (const line of table.split('\n')) {
    const f = line.trim().split(/\s+/);
    // sl, local_address, rem_address, st, tx_queue:rx_queue, ...
    if (f.length < 5 || f[1] === 'local_address') continue;
    if (portOf(f[1] ?? '') !== localPort || portOf(f[2] ?? '') !== remotePort) continue;
    return parseInt((f[4] ?? '').split(':')[0] ?? '', 16);
  }
  return null;
}

/** The kernel's unacknowledged bytes of the connection localPort → remotePort (IPv4, then IPv6); null: unknown. */
export function kernelSendQueue(localPort: number, remotePort: number, read: (path: string) => string = (p) => readFileSync(p, 'latin1')): number | null {
  for (const path of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = read(path);
    } catch {
      continue;
    }
    const q = txQueueIn(table, localPort, remotePort);
    if (q !== null) return q;
  }
  return null;
}
