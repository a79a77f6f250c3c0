import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, loadConfigObject } from '../../src/config/load.js';
import { configProblems } from '../support/config-problems.js';
import { STATION } from '../support/shared.js';

const BOX = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001';
const PASSWORD = 'Abcdefghij0123456789';

function dirWithPassword(password = PASSWORD): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  writeFileSync(join(dir, 'station-password'), `${password}\n`);
  return dir;
}
const valid = (dir: string) => ({
  station: { id: STATION.id, passwordFile: join(dir, 'station-password'), boxes: [{ number: 1, id: BOX }] },
  server: { baseUrl: 'https://library.example/pickup' },
});

describe('config', () => {
  it('fills the spec defaults: answer timeout 20 s, 3 attempts, heartbeat 30 s, version v2', () => {
    const { config, password } = loadConfigObject(valid(dirWithPassword()), 'test', {});
    expect(config.server).toMatchObject({ answerTimeoutMs: 20_000, attempts: 3, version: 'v2', acceptLanguage: null });
    expect(config.timing.heartbeatIntervalMs).toBe(30_000);
    expect(config.hardware.kind).toBe('simulated');
    expect(password).toBe(PASSWORD);
  });

  it('the alarm keys: defaults, and every problem at once with its path', () => {
    const { config } = loadConfigObject(valid(dirWithPassword()), 'test', {});
    expect(config.timing).toMatchObject({ doorAjarMs: 120_000, doorAjarReminderMs: 30_000 });
    expect(config.pin).toEqual({ maxFailures: 5, lockoutMs: 30_000, maxLockoutMs: 900_000, countdownTickMs: 1_000 });
    expect(config.messages.locale).toBe('en');
    expect(config.buzzer.patterns.refused).toEqual([80, 80, 80]);
    const problems = configProblems(() =>
      loadConfigObject(
        {
          ...valid(dirWithPassword()),
          pin: { lockoutMs: 60_000, maxLockoutMs: 30_000 },
          buzzer: { patterns: { accepted: [60, 60] } },
          messages: { locale: 'de', doorAjar: 'close it', prompt: [], busy: ['', '   '] },
        },
        'test',
        {},
      ),
    );
    expect(problems.map((p) => p.path).sort()).toEqual([
      'buzzer.patterns.accepted',
      'messages.busy',
      'messages.doorAjar',
      'messages.locale',
      'messages.prompt',
      'pin.maxLockoutMs',
    ]);
    expect(problems.find((p) => p.path === 'messages.prompt')?.message).toMatch(/not blank/);
  });

  it('reports every problem at once with its path and the bad value', () => {
    const dir = dirWithPassword();
    const raw = {
      station: {
        id: 'NOT-A-UUID',
        passwordFile: join(dir, 'station-password'),
        boxes: [
          { number: 1, id: BOX },
          { number: 1, id: BOX },
        ],
      },
      server: { baseUrl: 'ftp://x', answerTimeoutMs: -5, attempts: 'three' },
      locks: { pulseMs: 60_000 },
      timing: { heartbeatIntervalMs: 30_000, bogus: 1 },
    };
    const problems = configProblems(() => loadConfigObject(raw, 'test', {}));
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'station.id',
        'station.boxes.1.id',
        'station.boxes.1.number',
        'server.baseUrl',
        'server.answerTimeoutMs',
        'server.attempts',
        'locks.pulseMs',
        'timing',
      ]),
    );
    expect(problems.find((p) => p.path === 'station.id')?.value).toBe('"NOT-A-UUID"');
    expect(problems.find((p) => p.path === 'locks.pulseMs')?.value).toBe('60000');
  });

  it('reads the password from $CREDENTIALS_DIRECTORY when no file is configured', () => {
    const dir = dirWithPassword();
    const raw = { ...valid(dir), station: { id: STATION.id, boxes: [{ number: 1, id: BOX }] } };
    expect(loadConfigObject(raw, 'test', { CREDENTIALS_DIRECTORY: dir }).password).toBe(PASSWORD);
    const problems = configProblems(() => loadConfigObject(raw, 'test', {}));
    expect(problems).toEqual([expect.objectContaining({ path: 'station.passwordFile', message: expect.stringContaining('no station password') })]);
  });

  it('a bad password is reported without its value', () => {
    const dir = dirWithPassword('short-secret!');
    const problems = configProblems(() => loadConfigObject(valid(dir), 'test', {}));
    expect(problems).toHaveLength(1);
    expect(JSON.stringify(problems)).not.toContain('short-secret');
  });

  it('schema and password problems come together; invalid JSON is one clear problem', () => {
    const raw = { station: { id: STATION.id, passwordFile: '/nonexistent/pw', boxes: [] }, server: { baseUrl: 'https://x' } };
    const problems = configProblems(() => loadConfigObject(raw, 'test', {}));
    expect(problems.map((p) => p.path).sort()).toEqual(['station.boxes', 'station.passwordFile']);
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'c.json');
    writeFileSync(file, '{ "station": ');
    expect(configProblems(() => loadConfigFile(file, {}))[0]?.message).toMatch(/not valid JSON/);
  });
});
