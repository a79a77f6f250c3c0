/**
 * The installer's "is apt or dpkg at work?" (systemd/installer/repair.sh `dpkg_busy`), asked by the
 * repair before a start and by pickup-station-upgrade.service before a deferred switch. Run in a PID
 * namespace of its own (unshare --pid --mount-proc), so that only the processes the test starts are
 * seen: programs named as apt's, dpkg's and unattended-upgrades' (copies of sleep under those names:
 * the kernel's process name is the program file's, cut to 15 characters, as for the real ones).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runs } from '../support/tools.js';

const REPAIR = join(import.meta.dirname, '../../systemd/installer/repair.sh');
const CAN_UNSHARE = process.getuid?.() === 0 && runs('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
const HAVE_UNSHARE = requireTool('unshare --pid --mount-proc (root)', CAN_UNSHARE, 'util-linux');

let bin: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'dpkg-busy-'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/**
 * `dpkg_busy`'s answer with these programs running (each a copy of sleep under that name), after
 * each is seen running by its process name (the kernel's, as pgrep reads it).
 */
function busyWith(names: string[]): string {
  const start = names.map((name) => `cp "$(command -v sleep)" "${bin}/${name}"; "${bin}/${name}" 300 & `).join('');
  const seen = names.map((name) => `until pgrep -f "${bin}/${name} 300" >/dev/null; do sleep 0.05; done; `).join('');
  const script = `${start}${seen}. "${REPAIR}"; if dpkg_busy; then echo busy; else echo free; fi; kill $(jobs -p) 2>/dev/null; exit 0`;
  const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'bash', '-c', script], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe.skipIf(!HAVE_UNSHARE)('the installer waits for apt and dpkg, not for unattended-upgrades being installed', () => {
  it('nothing running: free', () => {
    expect(busyWith([])).toBe('free');
  });
  it("unattended-upgrades' shutdown helper, always running where the package is installed: free", () => {
    // Its process name is "unattended-upgr", the same 15 characters as the upgrade's own.
    expect(busyWith(['unattended-upgrade-shutdown'])).toBe('free');
  });
  it('an unattended upgrade under way: busy', () => {
    expect(busyWith(['unattended-upgrade'])).toBe('busy');
    expect(busyWith(['unattended-upgrade', 'unattended-upgrade-shutdown'])).toBe('busy');
  });
  it('dpkg, apt-get or apt under way: busy', () => {
    for (const name of ['dpkg', 'apt-get', 'apt']) expect(busyWith([name]), name).toBe('busy');
  });
});
