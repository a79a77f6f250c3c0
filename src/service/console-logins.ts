/**
 * Failed logins on the station's consoles, as the technician status and the metrics show them.
 *
 * `login` (util-linux) appends a utmp record to /var/log/btmp for every failed login, with the
 * terminal it was made on. On a station in a public place a failed login on a console — a virtual
 * terminal (`tty1`…), a serial console (`ttyS0`, `ttyAMA0`, a USB serial adapter) — is a person at
 * the station with a keyboard, or inside the cabinet with a serial cable: the fleet should see it.
 * Logins over the network (`pts/…`, `ssh:notty`) are not counted here.
 *
 * The file is root's (0660 root:utmp); the unit reads it through its `utmp` group, and its
 * ProtectSystem=strict keeps it read-only to the station whatever the group allows.
 *
 * What is kept of a record: its terminal and its time. Never the user name: what a person typed at
 * a login prompt may be a password typed one line too early.
 *
 * Read incrementally (from where the last read stopped), so a scrape costs what was appended since.
 * At the first read the records already there are not counted (a restart must not look like new
 * attempts to Prometheus' increase()), but the newest one's time is reported. A rotated file
 * (smaller, or another inode) is read from its start.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * glibc's `struct utmp` as the machine's own login writes it. The same up to `ut_exit`; after it,
 * `ut_session` and `ut_tv` are int32s on 32-bit ABIs and on the 64-bit ones that kept them so for
 * 32-bit compatibility (x86_64, ppc64, s390x: 384 bytes), and longs on the others (aarch64 — a
 * Raspberry Pi's 64-bit OS —, riscv64, loongarch64: 400 bytes, the time at 344 as an int64).
 */
export interface UtmpLayout {
  readonly recordBytes: number;
  readonly tvSecOffset: number;
  readonly tvSecBytes: 4 | 8;
}
export const UTMP_TIME32: UtmpLayout = { recordBytes: 384, tvSecOffset: 340, tvSecBytes: 4 };
export const UTMP_TIME64: UtmpLayout = { recordBytes: 400, tvSecOffset: 344, tvSecBytes: 8 };

/** The layout of `arch` (process.arch's names). */
export function utmpLayoutOf(arch: string): UtmpLayout {
  return arch === 'arm64' || arch === 'riscv64' || arch === 'loong64' ? UTMP_TIME64 : UTMP_TIME32;
}

const UT_LINE = 8;
const UT_LINE_BYTES = 32;
/** At the first read, at most about this much of the file's end is read for the newest attempt's time. */
const FIRST_READ_TAIL_BYTES = 4 * 1024 * 1024;

/** A terminal a person at the station, or inside it, types on: not a pseudo-terminal (network). */
const CONSOLE_LINE = /^(?:tty(?:[0-9]+|S[0-9]+|AMA[0-9]+|USB[0-9]+|ACM[0-9]+|GS[0-9]+|mxc[0-9]+)|hvc[0-9]+|console)$/;

export interface ConsoleLogins {
  /** Failed console logins counted since this process first read the file. */
  readonly failed: number;
  /** The newest failed console login in the file (counted or not): its terminal and time. */
  readonly last: { readonly line: string; readonly at: Date } | null;
  /** Why the file could not be read (missing, no permission); null when it was read. */
  readonly problem: string | null;
}

/** Decodes one record: its terminal (when a console) and time, or null for any other record. */
export function consoleFailure(record: Buffer, layout: UtmpLayout): { line: string; at: Date } | null {
  if (record.length < layout.recordBytes) return null;
  const raw = record.subarray(UT_LINE, UT_LINE + UT_LINE_BYTES);
  const end = raw.indexOf(0);
  const line = raw.subarray(0, end === -1 ? raw.length : end).toString('latin1');
  if (!CONSOLE_LINE.test(line)) return null;
  const sec = layout.tvSecBytes === 8 ? Number(record.readBigInt64LE(layout.tvSecOffset)) : record.readInt32LE(layout.tvSecOffset);
  return { line, at: new Date(sec * 1000) };
}

/**
 * One btmp file's reader; keeps where it stopped. The process makes one (src/supervised.ts) and hands
 * it to the status and the metrics, which so share its count.
 */
export class ConsoleLoginLog {
  private offset: number | null = null;
  private inode = -1;
  private failed = 0;
  private last: ConsoleLogins['last'] = null;
  private problem: string | null = null;

  private readonly record: number;

  constructor(
    readonly file: string,
    readonly layout: UtmpLayout = utmpLayoutOf(process.arch),
  ) {
    this.record = layout.recordBytes;
  }

  read(): ConsoleLogins {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // No file yet: every record it gets later is a new attempt.
      if (code === 'ENOENT' && this.offset === null) this.offset = 0;
      this.problem = `${this.file}: ${code ?? String(e)}`;
      return this.view();
    }
    try {
      const st = fstatSync(fd);
      const first = this.offset === null;
      if (first) {
        // Records already there: not counted; the newest attempt among the last ones is shown.
        const whole = st.size - (st.size % this.record);
        const tail = FIRST_READ_TAIL_BYTES - (FIRST_READ_TAIL_BYTES % this.record);
        this.scan(fd, Math.max(0, whole - tail), whole, false);
        this.offset = whole;
      } else if (st.ino !== this.inode || st.size < (this.offset ?? 0)) {
        this.offset = 0; // rotated: the new file from its start
      }
      this.inode = st.ino;
      if (!first) {
        const end = st.size - ((st.size - (this.offset ?? 0)) % this.record);
        this.scan(fd, this.offset ?? 0, end, true);
        this.offset = end;
      }
      this.problem = null;
    } catch (e) {
      this.problem = `${this.file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
    } finally {
      closeSync(fd);
    }
    return this.view();
  }

  private scan(fd: number, from: number, to: number, count: boolean): void {
    const chunk = Buffer.alloc(this.record * 256);
    for (let pos = from; pos < to;) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, to - pos), pos);
      if (n <= 0) break;
      const whole = n - (n % this.record);
      for (let i = 0; i < whole; i += this.record) {
        const f = consoleFailure(chunk.subarray(i, i + this.record), this.layout);
        if (f === null) continue;
        if (count) this.failed++;
        if (this.last === null || f.at >= this.last.at) this.last = f;
      }
      if (whole === 0) break;
      pos += whole;
    }
  }

  private view(): ConsoleLogins {
    return { failed: this.failed, last: this.last, problem: this.problem };
  }
}
