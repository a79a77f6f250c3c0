/**
 * The textfile output: the same metrics as /metrics, written to `<dir>/pickup-station.prom` for
 * node_exporter's textfile collector (the usual bridge where the technician port is a unix socket,
 * or where an agent on the board pushes by remote_write).
 *
 * Written with atomicWrite (temp file + rename in the same folder; the temp name starts with a dot,
 * so the collector's *.prom never reads half a file), once at start and then every `intervalMs`
 * after the previous write finished (writes never overlap). Not fsync'ed: the file is rewritten
 * every few seconds, and a power cut that loses one write loses nothing a scrape would miss.
 * The file stays after a stop: node_exporter's node_textfile_mtime_seconds shows its age, which the
 * alert rules use for a silent station.
 *
 * A failing write (folder missing, disk full) is logged once when it starts failing and once when
 * it works again; the station goes on.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { atomicWrite } from '../storage/atomic-write.js';
import { TEXTFILE_NAME } from './config.js';

export interface TextfileOptions {
  readonly dir: string;
  readonly intervalMs: number;
  readonly render: () => Promise<string>;
  readonly log: Logger;
}

export interface TextfileWriter {
  readonly path: string;
  /** No more writes; resolves once a write in progress has finished. */
  stop(): Promise<void>;
}

export function startTextfile(o: TextfileOptions): TextfileWriter {
  const path = join(o.dir, TEXTFILE_NAME);
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let failing: string | null = null;
  let writing: Promise<void> = Promise.resolve();

  const writeOnce = async (): Promise<void> => {
    try {
      // World-readable: node_exporter runs as its own user; no label holds anything secret.
      await atomicWrite(path, await o.render(), { mode: 0o644, durable: false });
      if (failing !== null) o.log.info({ path }, 'metrics textfile written again');
      failing = null;
    } catch (e) {
      const why = errorMessage(e);
      if (failing === null) o.log.warn({ path, error: why }, 'metrics textfile cannot be written; retrying every interval');
      failing = why;
    }
  };
  const cycle = (): void => {
    writing = writeOnce().then(() => {
      if (!stopped) timer = setTimeout(cycle, o.intervalMs);
    });
  };
  cycle();
  return {
    path,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await writing;
    },
  };
}
