/**
 * Child processes of the bench: the built daemon and the small scripts in bench/children/, plus
 * what /proc tells about them (CPU ticks, RSS). Paths are resolved from dist/bench/lib/.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAIN_JS = fileURLToPath(new URL('../../src/main.js', import.meta.url));
export const childScript = (name: string): string => fileURLToPath(new URL(`../children/${name}.js`, import.meta.url));

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux we ship on). */
export const CLK_TCK = 100;

export interface Spawned {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

/** A node process (default: this one's binary) with a clean environment: only PATH and `env`. */
export function spawnNode(args: readonly string[], opts: { node?: string; env?: NodeJS.ProcessEnv; stdio?: StdioOptions } = {}): Spawned {
  const child = spawn(opts.node ?? process.execPath, args, {
    env: { PATH: process.env['PATH'], ...opts.env },
    stdio: opts.stdio ?? ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited };
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(p: Spawned, graceMs = 5_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** utime + stime of a process, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLK_TCK;
}

/** Resident set size of a process, bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A child's `{ready: …}` message (what the station children send once they listen), for nextMessage. */
export const isReadyMessage = (m: unknown): true | undefined => (typeof m === 'object' && m !== null && 'ready' in m ? true : undefined);

/** A child with an IPC channel and its stderr on ours. */
export const IPC_STDIO = ['ignore', 'ignore', 'inherit', 'ipc'] as const;

/** The next IPC message of a child that satisfies `pick`, or a rejection after timeoutMs. */
export function nextMessage<T>(child: ChildProcess, pick: (m: unknown) => T | undefined, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      const v = pick(m);
      if (v === undefined) return;
      done();
      resolve(v);
    };
    const onExit = (code: number | null): void => {
      done();
      reject(new Error(`${what}: child exited (${code}) first`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what}: no message within ${timeoutMs} ms`));
    }, timeoutMs);
    function done(): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** On-CPU time of a process's main thread so far (ns resolution, from /proc/<pid>/schedstat), ms. */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** Resident memory by kind from /proc/<pid>/smaps_rollup, bytes. */
export function smapsRollup(pid: number): { rss: number; fileBacked: number; anonymous: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  const rss = kb('Rss');
  const anonymous = kb('Anonymous');
  return { rss, fileBacked: rss - anonymous, anonymous };
}
