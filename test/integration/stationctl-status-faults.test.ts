/**
 * `stationctl status` shows every fault the technician API shows: the station's faults, the
 * journal's problem (a damaged journal set aside at start; a state filesystem gone read-only), a
 * device that is not ok — and which config file version runs and what waits for a restart. The
 * status comes from a real station's technician port on 127.0.0.1; stationctl's own formatter
 * (src/cli/technician/format.ts) renders it.
 */
import { afterEach, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/technician/format.js';
import { MemoryJournal } from '../../src/journal/memory.js';
import { statusFaults } from '../../src/technician/faults.js';
import type { StatusBody } from '../../src/technician/status.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const PROBLEM = '/var/lib/pickup-station/journal.log damaged: record 3 of 9: checksum mismatch; set aside';

it('a journal problem is a fault in stationctl status, as in the API; the config line names the running version', async () => {
  d = await startDebugHarness({ journal: new MemoryJournal([], PROBLEM) });
  await idle(d);
  const status = (await d.call('GET', '/api/status')).body as unknown as StatusBody;
  expect(status.journal.problem).toBe(PROBLEM);
  const faults = statusFaults(status);
  expect(faults).toContainEqual(`journal: ${PROBLEM}`);
  const text = formatStatus(status);
  const faultLine = text.split('\n').find((l) => l.startsWith('faults'));
  expect(faultLine).toContain(PROBLEM);
  expect(faultLine).not.toContain('none');
  expect(text).toMatch(new RegExp(`^config +.*config\\.json version ${status.configFile.running}$`, 'm'));
});

it('every fault the API shows is in the faults line: station faults, the journal not writing, a device down, a HID device typing beyond the station', () => {
  const typing = { nodes: ['event5'], problem: 'a keyboard beyond the station: /dev/input/event5 to libinput', text: 'a keyboard beyond the station' };
  const status = {
    faults: { service: 'service', 'device:scanner': 'scanner missing' },
    journal: { ok: false, problem: 'write failed: EROFS', location: '/var/lib/pickup-station/journal.log' },
    devices: [
      { name: 'barcode scanner', ok: false, detail: '/dev/ttyUSB0 missing', input: null },
      { name: 'keypad', ok: true, detail: null, input: typing },
      { name: 'HID RFID reader', ok: true, detail: null, input: { nodes: [], problem: null, text: 'no input event node' } },
    ],
  };
  expect(statusFaults(status)).toEqual([
    'service: service',
    'device:scanner: scanner missing',
    'journal NOT WRITING: write failed: EROFS',
    'device barcode scanner: /dev/ttyUSB0 missing',
    'device keypad: a keyboard beyond the station: /dev/input/event5 to libinput',
  ]);
});
