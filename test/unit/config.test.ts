import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyClasses } from '../../src/config/apply.js';
import { configSchema } from '../../src/config/schema.js';
import { loadConfigFile, loadConfigObject } from '../../src/config/load.js';
import { daemonConfig } from '../../src/daemon.js';
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

describe('the technician section under its old name "debug"', () => {
  const TOKEN_HASH = `sha256:${'a'.repeat(64)}`;
  const write = (content: object): string => {
    const dir = dirWithPassword();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ ...valid(dir), ...content }));
    return file;
  };

  it('is read as "technician", relative paths included, with one warning naming both keys', () => {
    const file = write({ debug: { listen: { socket: 'run/technician.sock' }, tokens: [{ name: 'alice', scope: 'service', hash: TOKEN_HASH }] } });
    const { config, warnings } = loadConfigFile(file, {});
    expect(config.technician.listen).toEqual({ socket: join(file, '..', 'run', 'technician.sock') });
    expect(config.technician.tokens).toEqual([{ name: 'alice', scope: 'service', hash: TOKEN_HASH }]);
    expect(config).not.toHaveProperty('debug');
    expect(warnings).toEqual([
      { kind: 'renamed-key', path: 'debug', replacement: 'technician', message: expect.stringMatching(/"debug" is now called "technician"/) },
    ]);
  });

  it('a problem inside it has the path the file writes', () => {
    const file = write({ debug: { tokens: [{ name: 'alice', scope: 'service', hash: 'plain' }], logLines: 1 } });
    expect(configProblems(() => loadConfigFile(file, {})).map((p) => p.path)).toEqual(['debug.tokens.0.hash', 'debug.logLines']);
  });

  it('written under both names: a problem at "debug", exit 78 as for any config problem', () => {
    const file = write({ debug: { logLines: 50 }, technician: { logLines: 60 } });
    expect(configProblems(() => loadConfigFile(file, {}))).toEqual([
      { path: 'debug', message: expect.stringMatching(/old name of "technician".*keep only "technician"/) },
    ]);
    const outcome = daemonConfig(file, {});
    expect(outcome.code).toBe(78);
    expect(outcome.code === 78 && outcome.message).toMatch(/^ {2}debug: the old name of "technician"/m);
  });

  it("under its new name: no warning; the reload classes are the section's own", () => {
    expect(loadConfigFile(write({ technician: { logLines: 50 } }), {}).warnings).toEqual([]);
    const classes = applyClasses(configSchema);
    expect([...classes.keys()].filter((k) => k.startsWith('debug'))).toEqual([]);
    expect(classes.get('technician.tokens')).toBe('live');
    expect(classes.get('technician.listen')).toBe('process');
    expect(classes.get('technician.logLines')).toBe('process');
  });
});
