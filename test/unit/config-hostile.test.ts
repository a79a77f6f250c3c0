/**
 * Hostile input, config and usage (docs/decisions/0040, 0041, 0042): whatever the
 * file holds, the loader reports problems with their paths and never a secret's value; relative
 * paths are relative to the config file; the password's problem is named by character class.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES, loadConfigFile, loadConfigObject, passwordProblem } from '../../src/config/load.js';
import { looksLikeSecret } from '../../src/config/problems.js';
import { daemonConfig } from '../../src/daemon.js';
import { ConfigError } from '../../src/errors.js';
import { configProblems } from '../support/config-problems.js';
import { STATION } from '../support/shared.js';

const BOX = 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001';
const PASSWORD = 'Abcdefghij0123456789';
const TOKEN = 'pst_q2VfX0k9yHc3m1ZtR8uWbN4sLpA7eJd6iGoK5vTxYz0';

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'hostile-cfg-'));
}
const base = (passwordFile: string) => ({
  station: { id: STATION.id, passwordFile, boxes: [{ number: 1, id: BOX }] },
  server: { baseUrl: 'https://library.example/pickup' },
});
function writeConfig(dir: string, config: unknown, name = 'config.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}
const outcomeText = (file: string, env: NodeJS.ProcessEnv = {}): { code: number; text: string } => {
  const o = daemonConfig(file, env);
  return o.code === 0 ? { code: 0, text: '' } : { code: o.code, text: o.message };
};

describe('any config ends in a config or exit 78 with paths, never a stack', () => {
  it('a config nested 5,000 (and 200,000) levels deep: 78, the path to where it gets too deep', () => {
    const dir = folder();
    for (const [nested, where] of [
      [`{"station":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`, /station\.a\.a\.a\.a\.a\..*\.a\.a\.a: nested more than 32 levels deep/],
      [`{"station":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, /station\.0\.0\.0\.0\.0\..*\.0\.0\.0: nested more than 32 levels deep/],
    ] as const) {
      const { code, text } = outcomeText(writeConfig(dir, nested));
      expect(code).toBe(78);
      expect(text).toMatch(where);
      expect(text).not.toMatch(/\n\s+at /);
      expect(text.length).toBeLessThan(500);
    }
  });

  it('a file larger than the cap is named as such without being read', () => {
    const file = writeConfig(folder(), `{"x":"${'y'.repeat(MAX_CONFIG_BYTES)}"}`);
    const { code, text } = outcomeText(file);
    expect(code).toBe(78);
    expect(text).toContain(`a config is at most ${MAX_CONFIG_BYTES}`);
  });

  it('a file of 100,000 wrong values prints 50 problems and counts the rest', () => {
    const dir = folder();
    const config = { ...base(join(dir, 'pw')), messages: { prompt: Array.from({ length: 100_000 }, (_, i) => i) } };
    const { code, text } = outcomeText(writeConfig(dir, config));
    expect(code).toBe(78);
    expect(text.split('\n').length).toBeLessThanOrEqual(53);
    expect(text).toMatch(/… and \d+ more/);
  });

  it('a UTF-8 byte-order mark is accepted (Windows editors write one)', () => {
    const dir = folder();
    writeFileSync(join(dir, 'pw'), `\uFEFF${PASSWORD}\r\n`);
    const file = writeConfig(dir, `\uFEFF${JSON.stringify(base(join(dir, 'pw')))}`);
    expect(loadConfigFile(file, {}).password).toBe(PASSWORD);
  });

  it('a JSON syntax error names line and column, never the text around it', () => {
    const dir = folder();
    const file = writeConfig(dir, `{\n  "station": {\n    "password": ${PASSWORD}\n  }\n}`);
    const { code, text } = outcomeText(file);
    expect(code).toBe(78);
    expect(text).toContain('not valid JSON: unexpected a letter or digit outside quotes');
    expect(text).not.toContain(PASSWORD);
    const truncated = writeConfig(dir, `{\n  "x": 1,\n  "station": "${PASSWORD}`, 't.json');
    const t = outcomeText(truncated);
    expect(t.text).toMatch(/not valid JSON: Unterminated string at line 3, column \d+/);
    expect(t.text).not.toContain(PASSWORD);
  });
});

describe("relative paths are relative to the config file's folder", () => {
  it('station.passwordFile, server.caFile, storage.directory and technician.listen.socket', () => {
    const dir = folder();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'pw'), PASSWORD);
    writeFileSync(join(dir, 'ca.pem'), 'not checked here beyond being readable');
    const file = writeConfig(dir, {
      ...base('secrets/pw'),
      server: { baseUrl: 'https://library.example/pickup', caFile: './ca.pem' },
      storage: { directory: 'state' },
      technician: { listen: { socket: 'run/technician.sock' } },
    });
    // Loaded from elsewhere: the working directory must not matter.
    const { config, password } = loadConfigFile(file, {});
    expect(password).toBe(PASSWORD);
    expect(config.station.passwordFile).toBe(join(dir, 'secrets', 'pw'));
    expect(config.server.caFile).toBe(join(dir, 'ca.pem'));
    expect(config.storage.directory).toBe(join(dir, 'state'));
    expect(config.technician.listen).toEqual({ socket: join(dir, 'run', 'technician.sock') });
  });

  it('an unreadable server.caFile is a config problem (78), not a crash at start', () => {
    const dir = folder();
    writeFileSync(join(dir, 'pw'), PASSWORD);
    const file = writeConfig(dir, { ...base('pw'), server: { baseUrl: 'https://library.example/pickup', caFile: 'missing.pem' } });
    expect(configProblems(() => loadConfigFile(file, {}))).toEqual([{ path: 'server.caFile', message: `cannot read ${join(dir, 'missing.pem')}: ENOENT` }]);
  });
});

describe('the password problem names the character class, never a character', () => {
  it.each([
    ['Abcdefghij-123456789', 'it has 20, including punctuation or symbols'],
    ['Abcdefghij 123456789', 'it has 20, including whitespace'],
    ['Abcdéfghij0123456789', 'it has 20, including non-ASCII characters'],
    ['Abcdefghij012345678', 'it has 19'],
    ['Abcdefghij\u0001123456789', 'it has 20, including control characters'],
    ['Abcdefghij\t12345678!', 'it has 20, including whitespace (a space, a tab, a line break) and punctuation or symbols'],
  ])('%j', (pw, expected) => {
    expect(passwordProblem(pw)).toContain(expected);
    const dir = folder();
    writeFileSync(join(dir, 'pw'), pw);
    const [problem] = configProblems(() => loadConfigObject(base(join(dir, 'pw')), 'test', {}));
    expect(problem?.path).toBe('station.passwordFile');
    expect(problem?.message).toContain(expected);
    const told = (problem?.message ?? '').split('(spec)')[1]?.replace('such as - _ . ! @', '') ?? '';
    for (const ch of ['-', 'é', '!']) if (pw.includes(ch)) expect(told).not.toContain(ch);
  });
});

describe('config errors never print a secret-looking value', () => {
  const pasted = (dir: string) => ({
    station: { id: STATION.id, passwordFile: join(dir, 'pw'), password: PASSWORD, boxes: [{ number: 1, id: BOX }] },
    server: { baseUrl: 'https://library.example/pickup', acceptLanguage: 42, attempts: TOKEN },
    technician: { tokens: [{ name: 'alice', scope: 'service', hash: TOKEN }], [`${PASSWORD}`]: 1 },
    portal: { baseUrl: 'https://portal.example', clientSecret: 'Zx9vQ2mP7rT4wY6uB3nK8sD1' },
    log: { level: `Bearer ${TOKEN}` },
  });

  it('the exit-78 message: paths and the kind of problem, no password, token or Bearer value', () => {
    const dir = folder();
    writeFileSync(join(dir, 'pw'), PASSWORD);
    const { code, text } = outcomeText(writeConfig(dir, pasted(dir)));
    expect(code).toBe(78);
    for (const secret of [PASSWORD, TOKEN, 'Zx9vQ2mP7rT4wY6uB3nK8sD1', TOKEN.slice(0, 12), PASSWORD.slice(0, 10)]) expect(text).not.toContain(secret);
    expect(text).toContain('station: unknown key "password"');
    expect(text).toMatch(/server\.attempts: .*\(got a 47-character string, not shown: it may be a secret\)/);
    expect(text).toMatch(/technician\.tokens\.0\.hash: must be "sha256:".*\(got a 47-character string, not shown/);
    expect(text).toMatch(/technician: unknown key \(a 20-character key, not shown: it looks like a secret\)/);
    expect(text).toContain('portal: unknown key "clientSecret"');
    expect(text).toMatch(/log\.level: .*not shown/);
    expect(text).toContain('server.acceptLanguage: Invalid input: expected string, received number (got 42)');
  });

  it('a password pasted into station.passwordFile is not echoed by "cannot read password file"', () => {
    const dir = folder();
    const problems = configProblems(() => loadConfigFile(writeConfig(dir, base(PASSWORD)), {}));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('station.passwordFile');
    expect(JSON.stringify(problems)).not.toContain(PASSWORD);
    expect(problems[0]?.message).toContain('a file name that looks like a secret: not shown');
  });

  it('ordinary values are still shown (a wrong UUID, a number, a URL)', () => {
    const dir = folder();
    writeFileSync(join(dir, 'pw'), PASSWORD);
    const problems = configProblems(() =>
      loadConfigObject(
        {
          ...base(join(dir, 'pw')),
          station: { id: STATION.id.toUpperCase(), passwordFile: join(dir, 'pw'), boxes: [{ number: 0, id: BOX }] },
          server: { baseUrl: 'ftp://library.example' },
        },
        'x',
        {},
      ),
    );
    expect(problems.find((p) => p.path === 'station.id')?.value).toBe(JSON.stringify(STATION.id.toUpperCase()));
    expect(problems.find((p) => p.path === 'station.boxes.0.number')?.value).toBe('0');
    expect(problems.find((p) => p.path === 'server.baseUrl')?.value).toBe('"ftp://library.example"');
  });

  it('what looks like a secret, and what does not', () => {
    for (const s of [
      PASSWORD,
      TOKEN,
      `Basic ${Buffer.from(`${STATION.id}:${PASSWORD}`).toString('base64')}`,
      `Bearer ${TOKEN}`,
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123XYZ',
      'Zx9vQ2mP7rT4wY6uB3nK8sD1',
    ])
      expect(looksLikeSecret(s), s).toBe(true);
    for (const s of [
      STATION.id,
      STATION.id.toUpperCase(),
      'https://library.example/pickup/v2',
      '/etc/pickup-station/station-password',
      'Scan an item',
      'cs-CZ, cs;q=0.9',
      'gpio-sim.0',
      'pinctrl-bcm2711',
      'info',
      'rpi4-12-boxes.json',
    ])
      expect(looksLikeSecret(s), s).toBe(false);
  });

  it('ConfigError is what the loader throws for every one of these (never another error)', () => {
    const dir = folder();
    expect(() => loadConfigFile(writeConfig(dir, pasted(dir)), {})).toThrow(ConfigError);
  });
});
