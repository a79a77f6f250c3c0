/** A pino logger whose lines the test can read. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

export interface CapturedLog {
  readonly log: Logger;
  /** Parsed lines so far. */
  lines(): { level: number; msg: string; [k: string]: unknown }[];
  /** Lines at `level` (pino numbers: 30 info, 40 warn, 50 error) whose msg contains `text`. */
  count(level: number, text: string): number;
}

export function captureLog(level: 'debug' | 'info' = 'debug'): CapturedLog {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const lines = () => raw.map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });
  return {
    log: createLogger(level, sink),
    lines,
    count: (lvl, text) => lines().filter((l) => l.level === lvl && l.msg.includes(text)).length,
  };
}
