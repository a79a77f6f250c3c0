/**
 * The listening sockets systemd hands this process (socket units: the kiosk page's port, the
 * technician port), read once. sd_listen_fds(3): LISTEN_PID must be this process, the fds start at
 * 3, LISTEN_FDNAMES names them (`FileDescriptorName=` in each socket unit). The variables are
 * removed once read, as sd_listen_fds(1) does, so that no child process takes them for its own.
 * A port served from such a socket is never free while the station restarts in-process (a reload),
 * and never bound by this process: a local process cannot take it to collect what is sent there.
 */

/** The first fd systemd passes (SD_LISTEN_FDS_START). */
const LISTEN_FDS_START = 3;

export interface ActivatedSocket {
  readonly fd: number;
  readonly name: string;
}

/** The sockets systemd passed to this process (sd_listen_fds), from `env`; [] when none. Pure. */
export function listenFds(env: NodeJS.ProcessEnv, pid: number): ActivatedSocket[] {
  if (env['LISTEN_PID'] !== String(pid)) return [];
  const count = Number(env['LISTEN_FDS']);
  if (!Number.isInteger(count) || count <= 0) return [];
  const names = (env['LISTEN_FDNAMES'] ?? '').split(':');
  return Array.from({ length: count }, (_, i) => ({ fd: LISTEN_FDS_START + i, name: names[i] ?? 'unknown' }));
}

let activated: ActivatedSocket[] | null = null;

/** The socket systemd passed under `name` (FileDescriptorName=), or null; the environment is read once, then cleared. */
export function activatedSocket(name: string): ActivatedSocket | null {
  if (activated === null) {
    activated = listenFds(process.env, process.pid);
    delete process.env['LISTEN_PID'];
    delete process.env['LISTEN_FDS'];
    delete process.env['LISTEN_FDNAMES'];
  }
  return activated.find((s) => s.name === name) ?? null;
}
