/**
 * kill -9 of the station mid-pulse, then `pickup-station safe-state`: every lock line OFF.
 * Both backends, on gpio-sim, in the rig VM. Uses the built dist/ (the rig builds it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BoardProfileInput } from '../../src/devices/board-config.js';
import { HAS_GPIO_SIM, HAS_GPIOD_TOOLS, report, simChip, waitFor } from './sim.js';

const DIST = resolve('dist/src');
const mod = (p: string): string => JSON.stringify(pathToFileURL(join(DIST, p)).href);

/** The station as far as the locks go: open the board's locks and start a long pulse. */
const PULSING_STATION = `
const { loadBoardProfile } = await import(${mod('config/board-profile.js')});
const { openGpioBackend } = await import(${mod('devices/gpio/backend.js')});
const { GpioLockBank } = await import(${mod('devices/gpio/locks.js')});
const { lockSpecs } = await import(${mod('devices/board.js')});
const { createLogger } = await import(${mod('log.js')});
const log = createLogger('silent');
const profile = loadBoardProfile(process.argv[1]);
const backend = await openGpioBackend(profile.gpio.backend, log);
const bank = await GpioLockBank.open(backend, { locks: lockSpecs(profile), watchdogMarginMs: 500, log });
bank.pulse(1, 3000).catch(() => {});
setTimeout(() => process.stdout.write('pulsing\\n'), 50);
setInterval(() => {}, 1000);
`;

function files(label: string, backend: 'sysfs' | 'cdev'): { config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'safe-state-'));
  const profile: BoardProfileInput = {
    name: `rig ${label}`,
    gpio: { backend },
    boxes: [
      { number: 1, lock: { chip: label, offset: 0 }, door: { chip: label, offset: 4 } },
      { number: 2, lock: { chip: label, offset: 1, activeLow: true }, door: { chip: label, offset: 5 } },
    ],
  };
  writeFileSync(join(dir, 'profile.json'), JSON.stringify(profile));
  // Only the hardware section: no station, no server, no password. safe-state needs none of them.
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ hardware: { kind: 'board', profile: join(dir, 'profile.json') } }));
  return { config: join(dir, 'config.json') };
}

function suite(label: string, backend: 'sysfs' | 'cdev', env: NodeJS.ProcessEnv = process.env): void {
  it('kill -9 mid-pulse leaves the lock ON; safe-state drives every lock OFF', async () => {
    const chip = simChip(label);
    chip.pull(1, 'up'); // the active-low lock's resistor to its OFF level (WIRING.md)
    const { config } = files(label, backend);
    const profile = config.replace('config.json', 'profile.json');
    const station = spawn(process.execPath, ['--input-type=module', '-e', PULSING_STATION, profile], { stdio: ['pipe', 'pipe', 'inherit'], env });
    let out = '';
    station.stdout.on('data', (c: Buffer) => (out += c.toString()));
    let exited = false;
    station.once('exit', () => (exited = true));
    await waitFor(
      'the station to pulse box 1',
      () => {
        if (exited) throw new Error(`the pulsing station exited early: ${out}`);
        return out.includes('pulsing') && chip.value(0) === 1;
      },
      60_000,
    );
    expect(chip.value(1)).toBe(1); // box 2 (active-low) is OFF = high

    station.kill('SIGKILL');
    await new Promise((r) => station.once('exit', r));
    expect(chip.value(0)).toBe(1); // nothing ended the pulse: the solenoid would still be energized

    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(DIST, 'main.js'), 'safe-state', '--config', config], { encoding: 'utf8', timeout: 60_000, env });
    const ms = Math.round(performance.now() - t0);
    report(
      `[${label}] safe-state exit ${r.status} (signal ${r.signal}, error ${String(r.error)}) in ${ms} ms: ${JSON.stringify(r.stdout)} ${JSON.stringify(r.stderr)}; line now ${chip.value(0)}`,
    );
    expect(r.status).toBe(0);
    expect(chip.value(0)).toBe(0);
    expect(chip.value(1)).toBe(1);
  });
}

describe.skipIf(!HAS_GPIO_SIM)('safe-state after kill -9, sysfs', () => suite('rig-safe', 'sysfs'));
describe.skipIf(!HAS_GPIOD_TOOLS)('safe-state after kill -9, cdev (libgpiod v1 tools)', () => suite('rig-safe-cdev', 'cdev'));
const V2 = '/opt/gpiod2/bin';
describe.skipIf(!HAS_GPIOD_TOOLS || !existsSync(V2))('safe-state after kill -9, cdev (libgpiod v2 tools)', () =>
  suite('rig-safe-cdev2', 'cdev', { ...process.env, PATH: `${V2}:${process.env['PATH'] ?? ''}` }),
);
