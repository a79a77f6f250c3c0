/**
 * Failed console logins from the failed-login record, as `login` writes it: the records are made by
 * util-linux's `utmpdump -r` (glibc's struct utmp, byte for byte), appended as login appends them.
 * Counted from the first read on (records already there are not new attempts), console terminals
 * only (not pseudo-terminals: the network), a rotated file read from its start, and nothing of the
 * name typed at the prompt kept.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleLoginLog, UTMP_TIME32, UTMP_TIME64, utmpLayoutOf, type UtmpLayout } from '../../src/service/console-logins.js';
import { requireTool, runs } from '../support/tools.js';

const HAVE_UTMPDUMP = requireTool('utmpdump', runs('utmpdump', ['--version']), 'util-linux');
const IS_ROOT = process.getuid?.() === 0;

/**
 * A record of `from`'s layout laid out as `to`'s: the fields up to ut_exit as they are, ut_session
 * and the time moved and widened or narrowed (what the same login writes on the other ABI).
 */
function relaid(record: Buffer, from: UtmpLayout, to: UtmpLayout): Buffer {
  const out = Buffer.alloc(to.recordBytes);
  record.copy(out, 0, 0, 336);
  const sec = from.tvSecBytes === 8 ? record.readBigInt64LE(from.tvSecOffset) : BigInt(record.readInt32LE(from.tvSecOffset));
  if (to.tvSecBytes === 8) out.writeBigInt64LE(sec, to.tvSecOffset);
  else out.writeInt32LE(Number(sec), to.tvSecOffset);
  return out;
}

/** utmp records of failed logins (type 6, LOGIN_PROCESS, as login writes to btmp), binary. */
function records(...logins: { line: string; user: string; at: string; host?: string }[]): Buffer {
  const text = logins
    .map((l, i) => `[6] [${String(1000 + i).padStart(5, '0')}] [${l.line.slice(-4)}] [${l.user}] [${l.line}] [${l.host ?? ''}] [0.0.0.0] [${l.at}]\n`)
    .join('');
  const out = join(dir, `records-${Math.random().toString(36).slice(2)}`);
  const r = spawnSync('utmpdump', ['-r', '-o', out], { input: text, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(out);
}

let dir: string;
let btmp: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'btmp-'));
  btmp = join(dir, 'btmp');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_UTMPDUMP)('failed console logins (btmp)', () => {
  it('records already there are not counted, but the newest is shown; new ones on consoles are, network ones are not', () => {
    writeFileSync(
      btmp,
      records({ line: 'tty1', user: 'root', at: '2026-11-27T22:00:00,000000+00:00' }, { line: 'ttyAMA0', user: 'pi', at: '2026-11-27T23:00:00,000000+00:00' }),
    );
    // This machine's own glibc writes records of the size the table gives for its architecture.
    expect(records({ line: 'tty1', user: 'x', at: '2026-11-27T22:00:00,000000+00:00' }).length).toBe(utmpLayoutOf(process.arch).recordBytes);
    const log = new ConsoleLoginLog(btmp);
    expect(log.read()).toEqual({ failed: 0, last: { line: 'ttyAMA0', at: new Date('2026-11-27T23:00:00Z') }, problem: null });

    // A person at the kiosk's keyboard types a password where the name goes; a network attempt too.
    appendFileSync(
      btmp,
      records(
        { line: 'tty2', user: 'hunter2secret', at: '2026-11-28T05:00:00,000000+00:00' },
        { line: 'pts/0', user: 'admin', at: '2026-11-28T05:00:10,000000+00:00', host: '10.0.0.9' },
        { line: 'ssh:notty', user: 'admin', at: '2026-11-28T05:00:20,000000+00:00', host: '10.0.0.9' },
        { line: 'ttyUSB0', user: 'root', at: '2026-11-28T05:01:00,000000+00:00' },
      ),
    );
    const seen = log.read();
    expect(seen).toEqual({ failed: 2, last: { line: 'ttyUSB0', at: new Date('2026-11-28T05:01:00Z') }, problem: null });
    expect(JSON.stringify(seen)).not.toContain('hunter2secret');
    // Read again: nothing new, nothing counted twice.
    expect(log.read().failed).toBe(2);
  });

  it("reads aarch64's 400-byte records (a Raspberry Pi's 64-bit OS) as well as the 384-byte ones, each with its own layout", () => {
    const host = utmpLayoutOf(process.arch);
    const one = records(
      { line: 'tty1', user: 'root', at: '2026-11-28T05:00:00,000000+00:00' },
      { line: 'pts/0', user: 'root', at: '2026-11-28T05:00:05,000000+00:00' },
    );
    const rec = (i: number): Buffer => one.subarray(i * host.recordBytes, (i + 1) * host.recordBytes);
    for (const layout of [UTMP_TIME32, UTMP_TIME64]) {
      const file = join(dir, `btmp-${layout.recordBytes}`);
      writeFileSync(file, '');
      const log = new ConsoleLoginLog(file, layout);
      log.read();
      appendFileSync(file, Buffer.concat([relaid(rec(0), host, layout), relaid(rec(1), host, layout), relaid(rec(0), host, layout)]));
      expect(log.read(), `${layout.recordBytes}-byte records`).toEqual({
        failed: 2,
        last: { line: 'tty1', at: new Date('2026-11-28T05:00:00Z') },
        problem: null,
      });
    }
    // aarch64's records read as 384-byte ones (what the station did on a Pi): the second is missed
    // and the first's time is the upper half of its session id: why the layout follows the architecture.
    const arm = join(dir, 'btmp-arm64');
    writeFileSync(arm, '');
    const wrong = new ConsoleLoginLog(arm, UTMP_TIME32);
    wrong.read();
    appendFileSync(arm, Buffer.concat([relaid(rec(0), host, UTMP_TIME64), relaid(rec(0), host, UTMP_TIME64)]));
    expect(wrong.read()).toEqual({ failed: 1, last: { line: 'tty1', at: new Date(0) }, problem: null });
    expect(utmpLayoutOf('arm64')).toBe(UTMP_TIME64);
    expect(utmpLayoutOf('arm')).toBe(UTMP_TIME32);
    expect(utmpLayoutOf('x64')).toBe(UTMP_TIME32);
  });

  it('a record half written is counted once it is whole; a rotated file is read from its start; the count only grows', () => {
    writeFileSync(btmp, '');
    const log = new ConsoleLoginLog(btmp);
    expect(log.read().failed).toBe(0);
    const one = records({ line: 'tty1', user: 'root', at: '2026-11-28T05:00:00,000000+00:00' });
    appendFileSync(btmp, one.subarray(0, 100));
    expect(log.read().failed).toBe(0);
    appendFileSync(btmp, one.subarray(100));
    expect(log.read().failed).toBe(1);
    // logrotate: the old file moves away, a new empty one, then a new attempt in it.
    renameSync(btmp, `${btmp}.1`);
    writeFileSync(btmp, records({ line: 'tty3', user: 'root', at: '2026-11-28T06:00:00,000000+00:00' }));
    expect(log.read()).toMatchObject({ failed: 2, last: { line: 'tty3' } });
  });

  it('a record that cannot be read is reported, and one that appears later is read whole', () => {
    const log = new ConsoleLoginLog(btmp);
    expect(log.read()).toEqual({ failed: 0, last: null, problem: `${btmp}: ENOENT` });
    writeFileSync(btmp, records({ line: 'tty1', user: 'root', at: '2026-11-28T05:00:00,000000+00:00' }));
    expect(log.read()).toMatchObject({ failed: 1, problem: null });
    if (!IS_ROOT) {
      chmodSync(btmp, 0o000);
      expect(log.read()).toMatchObject({ failed: 1, problem: `${btmp}: EACCES` });
    }
  });
});
