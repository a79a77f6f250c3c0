/**
 * Whether a technician port on this machine is the station's before a token is sent to it. While
 * the station restarts, its TCP port is free for a moment (the socket unit restarts with it; a port
 * the daemon binds itself is free until it binds it again): any local process could take it and
 * collect the next Bearer token — a service token opens boxes. So `stationctl` sends a token to a
 * TCP port of this machine only when the socket listening there belongs to root (systemd's
 * pickup-station-technician.socket) or to the station's own user (a `technician.listen` the config asks
 * for); anything else is refused, naming the owner (record 0147). The owner is the kernel's: the uid
 * column of /proc/net/tcp and tcp6, readable by every user. A port on another machine cannot be
 * checked from here: that is the network's to protect.
 */
import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The station's system user (systemd/pickup-station.service: User=). */
export const STATION_USER = 'pickup-station';

/** A socket listening on a port: its local address and its owner's uid. */
export interface Listener {
  readonly address: string;
  readonly uid: number;
}

/** The port would go to a process that is not the station's. */
export class PortNotHeldError extends Error {
  override readonly name = 'PortNotHeldError';
}

function ipv4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24].join('.');
}

function ipv6(hex: string): string {
  // Four 32-bit words, each in the host's (little-endian) order.
  const bytes: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(word.slice(b * 2, b * 2 + 2));
  }
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! + bytes[i * 2 + 1]!).replace(/^0{1,3}/, '').toLowerCase());
  const text = groups.join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  if (text.startsWith('0:0:0:0:0:ffff:')) return `::ffff:${ipv4(hex.slice(24))}`;
  return text;
}

/** The sockets listening on `port` (/proc/net/tcp and tcp6 under `procNet`). */
export function listenersOn(port: number, procNet = '/proc/net'): Listener[] {
  const out: Listener[] = [];
  for (const [file, v6] of [
    ['tcp', false],
    ['tcp6', true],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(`${procNet}/${file}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const [addrHex, portHex] = (f[1] ?? '').split(':');
      if (f[3] !== '0A' || portHex === undefined || Number.parseInt(portHex, 16) !== port) continue;
      out.push({ address: v6 ? ipv6(addrHex ?? '') : ipv4(addrHex ?? ''), uid: Number(f[7]) });
    }
  }
  return out;
}

/** The uid of `user` in /etc/passwd, or null. */
export function uidOf(user: string, passwd = '/etc/passwd'): number | null {
  try {
    for (const line of readFileSync(passwd, 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === user && f[2] !== undefined) return Number(f[2]);
    }
  } catch {
    return null;
  }
  return null;
}

/** This machine's own addresses: loopback and every interface's. */
function ownAddresses(): Set<string> {
  const own = new Set(['127.0.0.1', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) own.add(a.address);
  return own;
}

const isLoopback = (a: string): boolean => a.startsWith('127.') || a === '::1' || a.startsWith('::ffff:127.');

/** The addresses `host` names, when one of them is this machine's; [] for another machine. */
async function localAddresses(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addrs = isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true }).catch(() => [])).map((a) => a.address);
  const own = ownAddresses();
  return addrs.filter((a) => isLoopback(a) || own.has(a));
}

/** Whether `l` listens where a connection to `addr` arrives (the address itself or every address). */
function serves(l: Listener, addr: string): boolean {
  return l.address === addr || l.address === '0.0.0.0' || l.address === '::' || l.address === `::ffff:${addr}`;
}

export interface PortCheck {
  readonly procNet?: string;
  readonly passwd?: string;
}

/**
 * Before a token goes to `url`: when it is a port of this machine, everything listening there that a
 * connection could reach must be root's or the station user's. Throws PortNotHeldError otherwise.
 */
export async function checkPortOwner(url: string, o: PortCheck = {}): Promise<void> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const addrs = await localAddresses(u.hostname);
  if (addrs.length === 0) return;
  const station = uidOf(STATION_USER, o.passwd);
  const trusted = (uid: number): boolean => uid === 0 || uid === station;
  const strangers = listenersOn(port, o.procNet).filter((l) => addrs.some((a) => serves(l, a)) && !trusted(l.uid));
  if (strangers.length === 0) return;
  const who = [...new Set(strangers.map((l) => l.uid))].map((uid) => `uid ${uid}`).join(', ');
  throw new PortNotHeldError(
    `refusing to send the token to ${u.host}: the socket listening there belongs to ${who}, not to systemd's pickup-station-technician.socket (root) ` +
      `nor to the station (${STATION_USER}); another process may have taken the port while the station restarted. ` +
      `Use the station's unix socket (sudo stationctl …, --socket /run/pickup-station/technician.sock) and check the board (ss -ltnp 'sport = :${port}')`,
  );
}
