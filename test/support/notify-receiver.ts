/**
 * A real $NOTIFY_SOCKET for tests: an AF_UNIX SOCK_DGRAM socket bound by a python3 child process
 * (Node cannot bind one), which prints every datagram it receives as one JSON line. It closes the
 * pipe fd systemd-notify passes with BARRIER=1 on receipt — exactly what lets the barrier complete,
 * as with PID 1 — and, as PID 1 does, it attributes a message by its sender's credentials and drops
 * one whose sender no longer runs. `busy(ms)` stops it reading for a while, as a PID 1 in a
 * daemon-reload does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RECEIVER = `
import array, json, os, select, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
# Another user may send (a test sends as an unprivileged one, as the station's user does).
os.chmod(os.path.dirname(sys.argv[1]), 0o755)
os.chmod(sys.argv[1], 0o666)
print(json.dumps({"listening": True}), flush=True)
busy_until = 0.0
def running(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
while True:
    wait = max(0.0, busy_until - time.monotonic())
    ready, _, _ = select.select([sys.stdin] + ([s] if wait == 0 else []), [], [], wait if wait > 0 else None)
    if sys.stdin in ready:
        line = sys.stdin.readline()
        if not line:
            break
        busy_until = time.monotonic() + float(line.split()[1]) / 1000
        print(json.dumps({"busy": True}), flush=True)
        continue
    if s not in ready:
        continue
    data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(64) + socket.CMSG_SPACE(12))
    pid = None
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
            for fd in fds:
                os.close(fd)
        elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = int.from_bytes(payload[0:4], sys.byteorder)
    text = data.decode("utf-8", "replace")
    if pid is not None and not running(pid):
        print(json.dumps({"dropped": text}), flush=True)
        continue
    print(json.dumps({"message": text}), flush=True)
`;

export interface NotifyReceiver {
  /** The socket path, to pass as NOTIFY_SOCKET. */
  readonly path: string;
  /** Every datagram received so far, in order (BARRIER=1 messages left out). */
  messages(): string[];
  /** Messages dropped because their sender had exited by the time they were read. */
  dropped(): string[];
  /** Read nothing for `ms` (queued datagrams wait in the socket, as with a busy PID 1). */
  busy(ms: number): Promise<void>;
  /** Resolves with the first message (from index `from` on) that satisfies `pred`. */
  waitFor(pred: (message: string) => boolean, timeoutMs?: number, from?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startNotifyReceiver(): Promise<NotifyReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'notify-'));
  const path = join(dir, 'notify.sock');
  const child: ChildProcess = spawn('python3', ['-u', '-c', RECEIVER, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const received: string[] = [];
  const dropped: string[] = [];
  let busyAck: () => void = () => undefined;
  const waiters = new Set<() => void>();
  let buffered = '';
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    listening = resolve;
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`notify receiver exited ${code}`)));
  });
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const parsed = JSON.parse(line) as { listening?: boolean; busy?: boolean; message?: string; dropped?: string };
      if (parsed.listening) listening();
      if (parsed.busy) busyAck();
      if (parsed.dropped !== undefined) dropped.push(parsed.dropped);
      if (parsed.message !== undefined && parsed.message !== 'BARRIER=1') received.push(parsed.message);
      for (const w of waiters) w();
    }
  });
  await ready;
  return {
    path,
    messages: () => [...received],
    dropped: () => [...dropped],
    busy: (ms) =>
      new Promise<void>((resolve) => {
        busyAck = resolve;
        child.stdin!.write(`busy ${ms}\n`);
      }),
    waitFor(pred, timeoutMs = 10_000, from = 0): Promise<string> {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const hit = received.slice(from).find(pred);
          if (hit === undefined) return false;
          waiters.delete(onMessage);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const onMessage = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(onMessage);
          reject(new Error(`no matching sd_notify message within ${timeoutMs} ms; got ${JSON.stringify(received)}`));
        }, timeoutMs);
        waiters.add(onMessage);
        check();
      });
    },
    async close(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin!.end();
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
