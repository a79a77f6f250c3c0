/** Simulated hardware whose doors survive a restart (hardware.stateFile): the file both ways. */
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { waitFor } from '../support/shared.js';

const make = (stateFile: string): SimulatedHardware =>
  new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 5, inputVoltage: 12, internetSignalStrength: 100, stateFile });
const read = (f: string): { doors: Record<string, string>; locks: Record<string, boolean> } => JSON.parse(readFileSync(f, 'utf8')) as never;

describe('simulated hardware state file', () => {
  it('writes door and lock changes, and a new station (a restart) starts with those doors and every lock off', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'simfile-')), 'hw.json');
    const a = make(file);
    expect(read(file)).toEqual({ doors: { 1: 'CLOSED', 2: 'CLOSED' }, locks: { 1: false, 2: false } });
    const pulse = a.locks.pulse(2, 100);
    await waitFor('lock on in the file', () => read(file).locks['2'] === true);
    await waitFor('door sprang open', () => read(file).doors['2'] === 'OPEN');
    await pulse;
    await waitFor('lock off in the file', () => read(file).locks['2'] === false);
    await a.close();
    const b = make(file);
    expect(await b.doors.read(2)).toBe('OPEN');
    expect(await b.doors.read(1)).toBe('CLOSED');
    expect(b.locks.isEnergized(2)).toBe(false);
    await b.close();
  });

  it('applies a door state written from outside (a person at the box) and ignores lock states', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'simfile-')), 'hw.json');
    const s = make(file);
    const seen: [number, string][] = [];
    s.doors.onChange((n, st) => seen.push([n, st]));
    writeFileSync(`${file}.tmp`, JSON.stringify({ doors: { 1: 'OPEN', 2: 'CLOSED' }, locks: { 1: true } }));
    renameSync(`${file}.tmp`, file);
    await waitFor('door 1 change applied', () => seen.length === 1);
    expect(seen).toEqual([[1, 'OPEN']]);
    expect(s.locks.isEnergized(1)).toBe(false);
    await s.close();
  });
});
