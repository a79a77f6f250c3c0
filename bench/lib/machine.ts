/** The machine a figure was taken on: without it a latency means nothing. */
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

export interface Machine {
  readonly nproc: number;
  readonly cpu: string;
  readonly ramGiB: number;
  readonly node: string;
  readonly kernel: string;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function machine(): Machine {
  const model = /^model name\s*:\s*(.+)$/m.exec(read('/proc/cpuinfo'))?.[1]?.trim() ?? 'unknown';
  return {
    nproc: availableParallelism(),
    cpu: model,
    ramGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: read('/proc/sys/kernel/osrelease').trim() || process.platform,
  };
}

export function describeMachine(m: Machine): string {
  return `${m.nproc} × ${m.cpu}, ${m.ramGiB} GiB RAM, Node ${m.node}, Linux ${m.kernel}`;
}
