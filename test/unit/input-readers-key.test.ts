/**
 * An RFID reader has its own profile key, `readers`; one under `scanners` (the key's old place) is
 * read as one of them with a warning naming where it is, and the profile goes on working. A path is
 * still claimed once across both lists. createInputDevices on the real drivers: the readers' ports
 * do not exist here, which is health, not an error.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { ASSIST_TEXTS } from '../../src/config/messages.js';
import { createInputDevices, inputProfileSchema } from '../../src/devices/input/index.js';

const STATION = { lang: 'en', words: ASSIST_TEXTS.en.kiosk, holdMs: 2_000 };
const READER = { kind: 'rfid-reader', path: '/dev/pickup-rfid-test-missing', reconnect: { initialMs: 60_000 } } as const;

async function built(profile: unknown): Promise<{ readers: number; scanners: number; warnings: { where?: string; msg: string }[] }> {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));
  const dev = await createInputDevices(inputProfileSchema.parse(profile), log, STATION);
  const all = [...dev.scanners, ...(dev.rfidReaders ?? [])];
  await Promise.all(all.map((d) => (d as unknown as { close(): Promise<void> }).close()));
  const warnings = lines.map((l) => JSON.parse(l) as { where?: string; msg: string }).filter((l) => l.msg.includes('"readers"'));
  return { readers: dev.rfidReaders?.length ?? 0, scanners: dev.scanners.length, warnings };
}

it('readers: built as RFID readers, no warning', async () => {
  expect(await built({ readers: [READER], keypad: null, display: { kind: 'terminal' } })).toEqual({ readers: 1, scanners: 0, warnings: [] });
});

it('a reader under scanners: read as one of readers, with a warning naming where it is', async () => {
  const b = await built({ scanners: [READER], keypad: null, display: { kind: 'terminal' } });
  expect(b).toMatchObject({ readers: 1, scanners: 0 });
  expect(b.warnings).toEqual([expect.objectContaining({ where: 'scanners[0]' })]);
});

it('one path is claimed once across scanners and readers', () => {
  const r = inputProfileSchema.safeParse({ scanners: [{ ...READER }], readers: [{ ...READER }], keypad: null });
  expect(r.success).toBe(false);
  expect(JSON.stringify(r.error?.issues)).toContain('is already used by scanners.0.path');
});
