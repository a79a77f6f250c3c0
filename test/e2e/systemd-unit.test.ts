/**
 * systemd/pickup-station.service has, line by line, what the station relies on (readiness and the
 * watchdog, locks OFF around every run, no restart on a bad config, the drain below the stop
 * timeout, SIGHUP reloads, its own user, the sandbox), and systemd itself accepts
 * it (verify + offline security score <= 3.0, where systemd-analyze is installed; .ci/run runs the
 * same script unconditionally).
 */
import { requireTool, runs } from '../support/tools.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverSchema, timingSchema } from '../../src/config/schema.js';
import { EXIT_CONFIG } from '../../src/errors.js';

const REPO = join(import.meta.dirname, '../..');
const TEXT = readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8');

/** section -> key -> every value, in order (systemd keys may repeat). */
function parse(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const m = /^\[(.+)\]$/.exec(line);
    if (m) {
      section = m[1]!;
      out[section] = {};
      continue;
    }
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    (out[section]![key] ??= []).push(line.slice(eq + 1));
  }
  return out;
}

const unit = parse(TEXT);
const svc = unit['Service']!;
const one = (key: string): string | undefined => svc[key]?.at(-1);

describe('pickup-station.service', () => {
  it('is a notify service whose child (systemd-notify) may notify, with a watchdog', () => {
    expect(one('Type')).toBe('notify');
    expect(one('NotifyAccess')).toBe('all');
    expect(one('WatchdogSec')).toBe('30s');
    expect(one('ExecStart')).toBe(
      'node --max-semi-space-size=1 --optimize-for-size --no-maglev /opt/pickup-station/current/app/main.js run --config /etc/pickup-station/config.json',
    );
  });

  it("runs the release's own node when it ships one, Debian's otherwise; children keep the usual PATH", () => {
    expect(one('ExecSearchPath')).toBe('/opt/pickup-station/current/node/bin:/usr/bin');
    expect(svc['Environment']).toContain('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    // Every Exec line names the bare "node", so all of them get the same one.
    for (const key of ['ExecStart', 'ExecStartPre', 'ExecStopPost'])
      for (const line of svc[key]!) expect(line.replace(/^-/, '').split(' ')[0], key).toBe('node');
  });

  it("keeps Node's compile cache in its own cache directory", () => {
    expect(svc['Environment']).toContain('NODE_COMPILE_CACHE=/var/cache/pickup-station/node-compile-cache');
    expect(one('CacheDirectory')).toBe('pickup-station');
    expect(one('CacheDirectoryMode')).toBe('0700');
  });

  it('restarts always, within a start limit, but never on a bad config (exit 78)', () => {
    expect(one('Restart')).toBe('always');
    expect(one('RestartPreventExitStatus')!.split(/\s+/)).toContain(String(EXIT_CONFIG));
    expect(unit['Unit']!['StartLimitIntervalSec']).toBeDefined();
    expect(Number(unit['Unit']!['StartLimitBurst']![0])).toBeGreaterThan(1);
  });

  it('starts after time sync (a board without an RTC would refuse the server certificate as not yet valid) without pulling it in', () => {
    expect(unit['Unit']!['After']!.join(' ').split(/\s+/)).toEqual(expect.arrayContaining(['network.target', 'time-sync.target']));
    expect(unit['Unit']!['Wants']?.join(' ') ?? '').not.toContain('time-sync.target');
  });

  it('drives every lock OFF before start (gating) and after stop (not masking the exit status)', () => {
    const safe = 'safe-state --config /etc/pickup-station/config.json';
    expect(svc['ExecStartPre']).toEqual([`node /opt/pickup-station/current/app/main.js ${safe}`]);
    expect(svc['ExecStopPost']).toEqual([`-node /opt/pickup-station/current/app/main.js ${safe}`]);
    expect(one('KillMode')).toBe('mixed');
  });

  it('a stop drains within timing.drainLimitMs and ends within drainLimitMs + stopLimitMs, below TimeoutStopSec', () => {
    const stopSec = /^(\d+)s$/.exec(one('TimeoutStopSec') ?? '');
    expect(stopSec).not.toBeNull();
    const { drainLimitMs, stopLimitMs } = timingSchema.parse({});
    // The answer timeout fits in the drain: the event in flight can get its answer.
    expect(drainLimitMs).toBeGreaterThan(serverSchema.shape.answerTimeoutMs.parse(undefined));
    // The daemon exits by drain + stop whatever a step does; systemd's flush and exit get what is left.
    expect(Number(stopSec![1]) * 1000 - drainLimitMs - stopLimitMs).toBeGreaterThanOrEqual(5_000);
  });

  it('reloads the config on SIGHUP (systemctl reload) and waits for the answer, within TimeoutStartSec', () => {
    expect(one('ExecReload')).toBe('node /opt/pickup-station/current/app/main.js reload --pid $MAINPID');
    const startSec = /^(\d+)s$/.exec(one('TimeoutStartSec') ?? '');
    expect(startSec).not.toBeNull();
    // A reload that waits for the station to be free answers (refused) before systemd gives up on it.
    expect(timingSchema.parse({}).reloadWaitLimitMs).toBeLessThan(Number(startSec![1]) * 1000);
  });

  it('runs as its own user with just the device groups, credentials encrypted, checked before each start', () => {
    expect(one('User')).toBe('pickup-station');
    expect(one('Group')).toBe('pickup-station');
    expect(one('SupplementaryGroups')!.split(/\s+/).sort()).toEqual(['audio', 'dialout', 'gpio', 'i2c', 'pickup-hid', 'utmp']);
    expect(svc['LoadCredential']).toBeUndefined();
    expect(svc['LoadCredentialEncrypted']).toEqual([
      'station-password:/etc/pickup-station/credentials/station-password.cred',
      'technician-tokens:/etc/pickup-station/credentials/technician-tokens.cred',
    ]);
    // A credential that does not decrypt skips the start (no restart) instead of failing every
    // ExecStartPre= with 243; the check runs as root, the script ships in the release.
    expect(svc['ExecCondition']).toEqual(['+/bin/bash /opt/pickup-station/current/systemd/credentials-check.sh']);
    expect(existsSync(join(REPO, 'systemd/credentials-check.sh'))).toBe(true);
    expect(one('StateDirectory')).toBe('pickup-station');
    expect(one('RuntimeDirectory')).toBe('pickup-station');
    expect(one('ConfigurationDirectory')).toBe('pickup-station');
  });

  it('is hardened, with exactly the device classes the hardware needs', () => {
    const want: Record<string, string> = {
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      NoNewPrivileges: 'yes',
      CapabilityBoundingSet: '',
      UMask: '0077',
      DevicePolicy: 'closed',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectClock: 'yes',
      ProtectHostname: 'yes',
      ProtectControlGroups: 'yes',
      RestrictNamespaces: 'yes',
      LockPersonality: 'yes',
      RestrictRealtime: 'yes',
      RestrictSUIDSGID: 'yes',
      SystemCallArchitectures: 'native',
      // AF_NETLINK for the USB watch alone (the kernel's uevents: devices coming and going).
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX AF_NETLINK',
    };
    for (const [k, v] of Object.entries(want)) expect(one(k), k).toBe(v);
    expect(svc['SystemCallFilter']![0]).toBe('@system-service');
    expect(svc['DeviceAllow']!.sort()).toEqual(
      ['char-alsa rw', 'char-gpiochip rw', 'char-hidraw rw', 'char-i2c rw', 'char-ttyACM rw', 'char-ttyAMA rw', 'char-ttyS rw', 'char-ttyUSB rw'].sort(),
    );
    // Writable: the sysfs GPIO backend's files, and the metrics textfile's folder on tmpfs (made by the
    // release's tmpfiles.d line; "-": absent unless installed).
    expect(svc['ReadWritePaths']).toEqual(['-/sys/class/gpio -/sys/devices/platform', '-/run/pickup-station-metrics']);
    // Deliberately absent (each explained in the unit): V8's JIT, group-based device access.
    expect(svc['MemoryDenyWriteExecute']).toBeUndefined();
    expect(svc['PrivateUsers']).toBeUndefined();
    expect(svc['PrivateDevices']).toBeUndefined();
  });

  it("logs into the station's own journal namespace, whose journald keeps 14 days and rotates daily", () => {
    expect(one('LogNamespace')).toBe('pickup-station');
    const journald = parse(readFileSync(join(REPO, 'systemd/journald@pickup-station.conf'), 'utf8'))['Journal']!;
    expect(journald['MaxRetentionSec']).toEqual(['14day']);
    expect(journald['MaxFileSec']).toEqual(['1day']);
  });

  it('every exception carries its reason in a comment', () => {
    for (const why of ['MemoryDenyWriteExecute', 'PrivateUsers', 'IPAddressDeny', 'AF_NETLINK', '/sys/class/gpio', 'ProcSubset']) expect(TEXT).toContain(why);
  });

  it('every Exec line names a file the build emits (app/, as the release ships it)', () => {
    // npm test builds (tsc, then scripts/app/build.mjs) before vitest; the bundle and install.sh ship app/ as built.
    for (const key of ['ExecStart', 'ExecStartPre', 'ExecStopPost'])
      for (const line of svc[key]!) {
        const script = line.split(' ').find((w) => w.startsWith('/opt/pickup-station/current/'))!;
        expect(existsSync(join(REPO, script.replace('/opt/pickup-station/current/', ''))), script).toBe(true);
      }
  });
});

const HAVE_ANALYZE = requireTool('systemd-analyze', runs('systemd-analyze', ['--version']), 'systemd') && existsSync('/usr/bin/node');
describe.skipIf(!HAVE_ANALYZE)('systemd-analyze', () => {
  it('verify passes and the offline security exposure is at most 3.0', () => {
    const r = spawnSync('bash', [join(REPO, 'systemd/check-unit.sh')], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const score = Number(/security: exposure ([0-9.]+)/.exec(r.stdout)?.[1]);
    expect(score).toBeLessThanOrEqual(3.0);
  });
});
