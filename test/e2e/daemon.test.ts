/**
 * The built daemon as a process (dist/, built by `npm test` before vitest): exit code 78 on a bad
 * config, a real run against the reference server, and a clean stop on SIGTERM.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReferenceServer, defaultSeed } from '../../src/reference-server/index.js';
import { MAIN, spawnDaemon } from '../support/daemon.js';
import { STATION } from '../support/shared.js';

const children = new Set<ChildProcess>();

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const p = spawnDaemon(process.execPath, [MAIN, ...args], env);
  children.add(p.child);
  return { ...p, exited: p.exited.then((e) => e.code) };
}

let server: ReferenceServer | undefined;

const BOXES = STATION.boxes.map((id, i) => ({ number: i + 1, id }));

/**
 * The reference server started for STATION, and a config file in a new folder (beside the station's
 * password in `station-password`) holding `sections(folder)` and the server's address.
 */
async function servedStation(sections: (dir: string) => Record<string, unknown>): Promise<{ dir: string; file: string; reference: ReferenceServer }> {
  const reference = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  server = reference;
  const url = await reference.start();
  const dir = mkdtempSync(join(tmpdir(), 'daemon-'));
  writeFileSync(join(dir, 'station-password'), STATION.password);
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ server: { baseUrl: new URL(url).origin }, ...sections(dir) }));
  return { dir, file, reference };
}
afterEach(async () => {
  // A failed test must not leave its daemon running.
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  children.clear();
  await server?.stop();
  server = undefined;
});

describe('pickup-station daemon', () => {
  it('exits 78 listing every config problem with its path and value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daemon-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ station: { id: 'nope', boxes: [] }, server: { baseUrl: 'gopher://x', attempts: 0 } }));
    const p = run(['--config', file]);
    expect(await p.exited).toBe(78);
    const err = p.err();
    for (const path of ['station.id', 'station.boxes', 'server.baseUrl', 'server.attempts', 'station.passwordFile']) expect(err).toContain(path);
    expect(err).toContain('"nope"');
  });

  it('exits 78 for a missing config file', async () => {
    const p = run(['--config', '/nonexistent/config.json']);
    expect(await p.exited).toBe(78);
    expect(p.err()).toMatch(/cannot read: ENOENT/);
  });

  it('exits 78 when the technician section is written under its old name "debug" as well', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daemon-'));
    writeFileSync(join(dir, 'station-password'), STATION.password);
    const file = join(dir, 'config.json');
    const station = { id: STATION.id, passwordFile: join(dir, 'station-password'), boxes: [{ number: 1, id: STATION.boxes[0] }] };
    writeFileSync(file, JSON.stringify({ station, server: { baseUrl: 'https://library.example' }, debug: {}, technician: {} }));
    const p = run(['--config', file]);
    expect(await p.exited).toBe(78);
    expect(p.err()).toContain('debug: the old name of "technician", which is written too');
  });

  it('starts with the old name "debug" for the technician section and logs one warning naming the file and both keys', async () => {
    const { file, reference } = await servedStation(() => ({
      station: { id: STATION.id, passwordFile: 'station-password', boxes: BOXES },
      storage: { directory: null },
      debug: { enabled: false },
    }));
    const p = run(['--config', file]);
    await reference.waitForRequest((r) => r.endpoint === 'state', 10_000);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const warnings = p.lines().filter((l) => l.msg.includes('"debug"'));
    expect(warnings).toEqual([expect.objectContaining({ level: 40, config: file, key: 'debug', replacement: 'technician' })]);
    expect(warnings[0]?.msg).toBe(
      `${file}: config key "debug" is now called "technician": rename it in the file (releases before 1.0.0 still read the old name)`,
    );
    // Read as "technician": the port it turns off is not listening.
    expect(p.lines().filter((l) => l.msg.startsWith('technician port'))).toEqual([]);
  });

  it('runs against the reference server with the password from $CREDENTIALS_DIRECTORY and stops on SIGTERM', async () => {
    const { dir, file, reference } = await servedStation((dir) => ({
      station: { id: STATION.id, boxes: BOXES },
      storage: { directory: join(dir, 'state') },
    }));
    const p = run(['--config', file], { CREDENTIALS_DIRECTORY: dir });
    const first = await reference.waitForRequest((r) => r.endpoint === 'state', 10_000);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ station: STATION.id, st: 'UP' });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const lines = p
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['starting', 'event answered', 'stopping']));
    expect(p.out()).not.toContain(STATION.password);
  });
});
