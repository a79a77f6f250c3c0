/**
 * Everything the station writes or shows, kept on disk for the soak's secrets check (in memory it
 * would count in the RSS being measured): both live streams of the technician port, a status every
 * 10 s; the log file and the storage directory are the station's own.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { filesUnder } from '../test/support/secrets.js';

export class Capture {
  private readonly aborts: AbortController[] = [];
  private readonly files: string[] = [];
  private readonly status: WriteStream;
  private readonly statusFile: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly portUrl: string,
    private readonly token: string,
    private readonly dir: string,
  ) {
    this.statusFile = join(dir, 'status.jsonl');
    this.status = createWriteStream(this.statusFile);
  }

  async start(): Promise<void> {
    for (const [path, name] of [
      ['/api/events/stream', 'events.stream'],
      ['/api/logs/stream', 'logs.stream'],
    ] as const) {
      const ctl = new AbortController();
      this.aborts.push(ctl);
      const file = join(this.dir, name);
      this.files.push(file);
      const res = await fetch(this.portUrl + path, { headers: { authorization: `Bearer ${this.token}` }, signal: ctl.signal });
      const out = createWriteStream(file);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            out.write(value);
          }
        } catch {
          // aborted at the end
        }
        out.end();
      })();
    }
    this.timer = setInterval(() => void this.takeStatus().catch(() => undefined), 10_000);
  }

  async takeStatus(): Promise<void> {
    const res = await fetch(`${this.portUrl}/api/status?events=100`, { headers: { authorization: `Bearer ${this.token}` } });
    this.status.write(`${await res.text()}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const a of this.aborts) a.abort();
    this.status.end();
  }

  /** Every captured text by source, plus `extraFiles` and everything under `storageDir`. */
  sources(extraFiles: readonly string[], storageDir: string): Record<string, string> {
    const sources: Record<string, string> = {};
    for (const f of [...extraFiles, this.statusFile, ...this.files]) sources[f] = readFileSync(f, 'utf8');
    for (const [path, text] of filesUnder(storageDir)) sources[path] = text;
    return sources;
  }
}
