/**
 * A real $NOTIFY_SOCKET for tests: an AF_UNIX SOCK_DGRAM socket bound by a python3 child process
 * (Node cannot bind one), which prints every datagram it receives as one JSON line. It reads
 * without ancillary buffers, so the pipe fd systemd-notify passes with BARRIER=1 is closed by the
 * kernel on receipt — exactly what lets the barrier complete, as with PID 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RECEIVER = `
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print(json.dumps({"listening": True}), flush=True)
while True:
    data = s.recv(65536)
    print(json.dumps({"message": data.decode("utf-8", "replace")}), flush=True)
`;

export interface NotifyReceiver {
  /** The socket path, to pass as NOTIFY_SOCKET. */
  readonly path: string;
  /** Every datagram received so far, in order (BARRIER=1 messages left out). */
  messages(): string[];
  /** Resolves with the first message (from index `from` on) that satisfies `pred`. */
  waitFor(pred: (message: string) => boolean, timeoutMs?: number, from?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startNotifyReceiver(): Promise<NotifyReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'notify-'));
  const path = join(dir, 'notify.sock');
  const child: ChildProcess = spawn('python3', ['-u', '-c', RECEIVER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const received: string[] = [];
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
      const parsed = JSON.parse(line) as { listening?: boolean; message?: string };
      if (parsed.listening) listening();
      if (parsed.message !== undefined && parsed.message !== 'BARRIER=1') received.push(parsed.message);
      for (const w of waiters) w();
    }
  });
  await ready;
  return {
    path,
    messages: () => [...received],
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
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
