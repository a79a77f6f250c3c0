/**
 * Fuzzing the config loader with fast-check (docs/decisions/0042): whatever a config file holds —
 * any JSON, a valid config with any key set to anything, arbitrary bytes, nesting of any depth —
 * the daemon's config step (daemonConfig, what runDaemon does first) ends in 0 or 78, never a
 * throw; a 78 message has no stack and never a secret that was planted anywhere in the file.
 *
 * Runs per property: $FUZZ_RUNS (default 300; `FUZZ_RUNS=20000 npx vitest run test/fuzz/config-files.test.ts` for a long run).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daemonConfig } from '../../src/daemon.js';
import { STATION } from '../support/shared.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);
const PASSWORD = 'Abcdefghij0123456789';
const dir = mkdtempSync(join(tmpdir(), 'hostile-fuzz-'));
writeFileSync(join(dir, 'station-password'), PASSWORD);
const ENV = { CREDENTIALS_DIRECTORY: dir };
const file = join(dir, 'config.json');

const VALID = {
  station: { id: STATION.id, boxes: [{ number: 1, id: 'bbbbbbbb-bbbb-4bbb-8bbb-000000000001' }] },
  server: { baseUrl: 'https://library.example/pickup' },
};
/** Every key of the schema (and a few that are not), as paths into the config. */
const PATHS = [
  'station',
  'station.id',
  'station.passwordFile',
  'station.boxes',
  'station.boxes.0',
  'station.boxes.0.id',
  'station.boxes.0.number',
  'station.password',
  'server',
  'server.baseUrl',
  'server.version',
  'server.answerTimeoutMs',
  'server.attempts',
  'server.acceptLanguage',
  'server.caFile',
  'server.token',
  'timing',
  'timing.heartbeatIntervalMs',
  'timing.pinIdleMs',
  'locks.pulseMs',
  'messages',
  'messages.prompt',
  'messages.pinEntry',
  'hardware',
  'hardware.kind',
  'hardware.profile',
  'hardware.power',
  'hardware.power.voltage',
  'storage.directory',
  'log.level',
  'portal',
  'portal.baseUrl',
  'portal.credentialsFile',
  'portal.clientSecret',
  'debug',
  'debug.tokens.0.hash',
  'technician',
  'technician.listen',
  'technician.listen.socket',
  'technician.tokens',
  'technician.tokens.0',
  'technician.tokens.0.hash',
  'technician.maxStreams',
  '',
  'x',
].map((p) => (p === '' ? [] : p.split('.')));

/** Secrets a technician might paste: a technician token, a station password, an HTTP credential. */
const secret = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{43}$/).map((s) => `pst_${s}`),
  fc.stringMatching(/^[A-Za-z0-9]{20}$/).filter((s) => /[0-9]/.test(s) && /[A-Za-z]/.test(s)),
  fc.stringMatching(/^[A-Za-z0-9]{24,40}$/).map((s) => `Bearer ${s}`),
);

function setPath(root: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path as [string, ...string[]];
  const node: Record<string, unknown> =
    typeof root === 'object' && root !== null ? (Array.isArray(root) ? { ...root } : { ...(root as Record<string, unknown>) }) : {};
  node[k] = setPath(node[k], rest, value);
  return node;
}

function outcome(text: string | Uint8Array): { code: number; message: string } {
  writeFileSync(file, text);
  const o = daemonConfig(file, ENV);
  return o.code === 0 ? { code: 0, message: '' } : o;
}

function check(o: { code: number; message: string }, secrets: readonly string[] = []): void {
  expect([0, 78]).toContain(o.code);
  expect(o.message).not.toMatch(/\n\s+at .+[:(]/);
  for (const s of secrets) {
    expect(o.message).not.toContain(s);
    expect(o.message).not.toContain(s.slice(0, 14));
  }
}

describe('config loader under fast-check', () => {
  it('any JSON document', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 8 }), (text) => check(outcome(text))),
      { numRuns: RUNS },
    );
  });

  it('a valid config with keys set to anything, secrets planted anywhere (as values and as keys)', () => {
    const edit = fc.tuple(
      fc.constantFrom(...PATHS),
      fc.oneof(
        fc.jsonValue({ maxDepth: 4 }),
        secret,
        secret.map((s) => ({ [s]: s })),
        secret.map((s) => [s]),
      ),
    );
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
        let config: unknown = VALID;
        const planted: string[] = [];
        for (const [path, value] of edits) {
          config = setPath(config, path, value);
          const text = JSON.stringify(value) ?? '';
          for (const m of text.matchAll(/pst_[A-Za-z0-9x]+|Bearer [A-Za-z0-9]+|"([A-Za-z0-9]{20})"/g)) planted.push(m[1] ?? m[0]);
        }
        check(outcome(JSON.stringify(config)), planted);
      }),
      { numRuns: RUNS },
    );
  });

  it('arbitrary bytes and text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 512 }), fc.string({ unit: 'binary', maxLength: 512 })), (content) => check(outcome(content))),
      { numRuns: RUNS },
    );
  });

  it('nesting of any depth, objects and arrays mixed, under any key', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATHS), fc.integer({ min: 1, max: 60_000 }), fc.boolean(), (path, depth, arrays) => {
        const open = arrays ? '['.repeat(depth) : '{"k":'.repeat(depth);
        const close = arrays ? ']'.repeat(depth) : `1${'}'.repeat(depth)}`;
        const marker = '"__DEEP__"';
        const text = JSON.stringify(setPath(VALID, path, '__DEEP__')).replace(marker, `${open}${close}`);
        check(outcome(text));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 5)) },
    );
  });
});
