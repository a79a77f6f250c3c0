/**
 * The kiosk's systemd side, as shipped: pickup-station-kiosk.socket (verified by systemd-analyze,
 * its port, its fd's name and its secret where the station's defaults look for them; bound to the
 * station's life, never what starts it), the kiosk browser's unit (bound to the socket unit; the
 * secret as a credential, the start page in its own runtime directory, never on Chromium's command
 * line) and systemd/kiosk-secret.sh, run as the units run it: a new secret each time the socket
 * unit starts, root-only, its hash readable by all, both removed when it stops; a start page only
 * its user can read, carrying the secret in the URL's fragment. And the development switch that
 * lets the daemon bind the kiosk's port itself is set in nothing that ships.
 * And what keeps a person with a keyboard on the page, as shipped: cage without VT switching, the
 * kiosk user without device groups, no gettys on other consoles and no key handled (logind), no
 * Ctrl+Alt+Del burst action (systemd), no magic SysRq (sysctl),
 * Chromium's managed policy and systemd/kiosk-policy.sh, which keeps the browser off when an
 * administrator's edit broke that policy. (The keys themselves are pressed on the virtual board:
 * scripts/board/parts/kiosk-lockdown.mjs.)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { kioskDisplaySchema, KIOSK_SECRET_HASH_FILE } from '../../src/devices/input/schema.js';
import { KIOSK_FD_NAME } from '../../src/devices/kiosk/listener.js';
import { requireTool, runs } from '../support/tools.js';

const SYSTEMD = join(import.meta.dirname, '../../systemd');
/** systemd's own logind.conf: every setting of this systemd's logind, commented, with its default. */
const LOGIND_DEFAULTS = '/etc/systemd/logind.conf';
const HAVE_LOGIND_DEFAULTS = requireTool(LOGIND_DEFAULTS, existsSync(LOGIND_DEFAULTS), 'systemd');
const SCRIPT = join(SYSTEMD, 'kiosk-secret.sh');
const POLICY_CHECK = join(SYSTEMD, 'kiosk-policy.sh');
const POLICY_FILE = '/etc/chromium/policies/managed/pickup-station.json';
const socketUnit = readFileSync(join(SYSTEMD, 'pickup-station-kiosk.socket'), 'utf8');
const browserUnit = readFileSync(join(SYSTEMD, 'pickup-station-kiosk.service'), 'utf8');
const one = (unit: string, key: string): string[] => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8);

function run(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('pickup-station-kiosk.socket', () => {
  it('verifies; holds the kiosk port on loopback for the station, named as the daemon looks for it; makes the secret where the station reads its hash', () => {
    if (!requireTool('systemd-analyze', runs('systemd-analyze', ['--version']), 'systemd')) return;
    const r = spawnSync('systemd-analyze', ['verify', 'pickup-station-kiosk.socket'], { cwd: SYSTEMD, encoding: 'utf8' });
    // The release's script is not installed on this machine: that is the only thing verify may say.
    const problems = `${r.stdout}${r.stderr}`
      .split('\n')
      .filter((l) => l.includes('pickup-station-kiosk') && !l.includes('/opt/pickup-station/current/systemd/kiosk-secret.sh is not executable'));
    expect(problems).toEqual([]);
    const port = kioskDisplaySchema.parse({ kind: 'kiosk' }).port;
    expect(one(socketUnit, 'ListenStream')).toEqual([`127.0.0.1:${port}`]);
    expect(one(socketUnit, 'FileDescriptorName')).toEqual([KIOSK_FD_NAME]);
    expect(one(socketUnit, 'Service')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'WantedBy')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'ExecStartPre')).toEqual([`/opt/pickup-station/current/systemd/kiosk-secret.sh make ${dirname(KIOSK_SECRET_HASH_FILE)}`]);
    expect(one(socketUnit, 'ExecStopPost')).toEqual([`/opt/pickup-station/current/systemd/kiosk-secret.sh clear ${dirname(KIOSK_SECRET_HASH_FILE)}`]);
  });

  it('never starts the station: bound to its life, started only with it, never by a connection to a stopped or masked one; the station and the three units verify together', () => {
    // Stopped, failed or masked station: the socket unit is stopped with it (BindsTo=), so nothing
    // listens to trigger a start; it is started only as the station's want, never by itself.
    expect(one(socketUnit, 'BindsTo')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'RefuseManualStart')).toEqual(['yes']);
    expect(socketUnit).not.toMatch(/^(Accept|Requires|Wants|PartOf)=/m);
    expect(socketUnit).not.toMatch(/^WantedBy=sockets\.target/m);
    // Nothing else is triggered by it, and the station needs nothing of it (it starts without its kiosk).
    const station = readFileSync(join(SYSTEMD, 'pickup-station.service'), 'utf8');
    expect(station).not.toMatch(/pickup-station-kiosk/);
    // The repair service (as root) is pulled in only by the station's own start.
    const repair = readFileSync(join(SYSTEMD, 'pickup-station-repair.service'), 'utf8');
    expect(one(repair, 'Before')).toEqual(['pickup-station.service']);
    expect(repair).not.toMatch(/^\[Install\]/m);
    expect(repair).not.toMatch(/^(WantedBy|RequiredBy|Sockets|ListenStream)=/m);
    if (!requireTool('systemd-analyze', runs('systemd-analyze', ['--version']), 'systemd')) return;
    const r = spawnSync(
      'systemd-analyze',
      ['verify', 'pickup-station.service', 'pickup-station-kiosk.socket', 'pickup-station-kiosk.service', 'pickup-station-repair.service'],
      {
        cwd: SYSTEMD,
        encoding: 'utf8',
      },
    );
    // Only what is not installed on this machine (the release's files, cage) may be named.
    const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '' && !/ is not executable: No such file or directory$/.test(l));
    expect(problems).toEqual([]);
  });

  it("the browser's unit needs the socket, takes the secret as a credential and opens a start page, never the secret on its command line", () => {
    const dir = dirname(KIOSK_SECRET_HASH_FILE);
    expect(one(browserUnit, 'BindsTo')).toEqual(['pickup-station-kiosk.socket']);
    expect(browserUnit).not.toMatch(/^Requires=/m);
    expect(one(browserUnit, 'LoadCredential')).toEqual([`kiosk-secret:${dir}/secret`]);
    expect(one(browserUnit, 'RuntimeDirectoryMode')).toEqual(['0700']);
    expect(one(browserUnit, 'ExecStartPre')).toContain(
      '/opt/pickup-station/current/systemd/kiosk-secret.sh page %d/kiosk-secret %t/pickup-kiosk/start.html http://127.0.0.1:8091/',
    );
    expect(browserUnit).toMatch(/chromium --kiosk [^\n]*\\\n[^\n]*\\\n[^\n]* file:\/\/%t\/pickup-kiosk\/start\.html$/m);
    expect(browserUnit).not.toMatch(/#k=/);
  });
});

describe('systemd/kiosk-secret.sh', () => {
  it('make: a 256-bit secret (root only) and its hash (readable by all), a new one at each start of the socket unit; clear removes both', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kiosk-secret-')), 'run');
    expect(run('make', dir).status).toBe(0);
    const secret = readFileSync(join(dir, 'secret'), 'utf8');
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(join(dir, 'secret'))).toBe('600');
    expect(readFileSync(join(dir, 'secret.sha256'), 'utf8')).toBe(`sha256:${createHash('sha256').update(secret).digest('hex')}\n`);
    expect(mode(join(dir, 'secret.sha256'))).toBe('644');
    expect(mode(dir)).toBe('755');
    // The socket unit started again: a new secret, the hash beside it.
    expect(run('make', dir).status).toBe(0);
    const next = readFileSync(join(dir, 'secret'), 'utf8');
    expect(next).toMatch(/^[0-9a-f]{64}$/);
    expect(next).not.toBe(secret);
    expect(readFileSync(join(dir, 'secret.sha256'), 'utf8')).toBe(`sha256:${createHash('sha256').update(next).digest('hex')}\n`);
    // A damaged one is made anew.
    writeFileSync(join(dir, 'secret'), 'x');
    expect(run('make', dir).status).toBe(0);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).not.toBe(secret);
    // The socket unit stopped: nothing left that a page could present or the station check against.
    expect(run('clear', dir).status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('page: a start page only its user reads, sending the browser to the page with the secret in the fragment; nothing else accepted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiosk-page-'));
    expect(run('make', join(dir, 'run')).status).toBe(0);
    const secret = readFileSync(join(dir, 'run/secret'), 'utf8');
    const page = join(dir, 'start.html');
    const ok = run('page', join(dir, 'run/secret'), page, 'http://127.0.0.1:8091/');
    expect(ok.status, ok.err).toBe(0);
    expect(ok.out).toBe('');
    expect(mode(page)).toBe('600');
    expect(readFileSync(page, 'utf8')).toContain(`<meta http-equiv="refresh" content="0; url=http://127.0.0.1:8091/#k=${secret}">`);
    writeFileSync(join(dir, 'bad'), 'not a secret');
    expect(run('page', join(dir, 'bad'), page, 'http://127.0.0.1:8091/').status).toBe(1);
    expect(run('page', join(dir, 'run/secret'), page, 'http://evil.example/').status).toBe(1);
    expect(run('nonsense').status).toBe(2);
  });
});

describe('developmentOwnPort', () => {
  it('is set in nothing that ships: board profiles, displays, the config template, the package', () => {
    const root = join(import.meta.dirname, '../..');
    const shipped: string[] = [];
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (/\.(json|conf|template|service|socket)$/.test(e.name)) shipped.push(path);
      }
    };
    for (const dir of ['hardware', 'systemd', 'packaging', 'ops']) walk(join(root, dir));
    expect(shipped.length).toBeGreaterThan(5);
    expect(shipped.filter((f) => readFileSync(f, 'utf8').includes('developmentOwnPort'))).toEqual([]);
    // Off unless a config says otherwise.
    expect(kioskDisplaySchema.parse({ kind: 'kiosk' }).developmentOwnPort).toBe(false);
  });
});

describe('what keeps a person with a keyboard on the kiosk page', () => {
  it('cage runs without -s (no Ctrl+Alt+F<n> to a console); the policy is checked before the browser starts', () => {
    const start = one(browserUnit, 'ExecStart');
    expect(start).toHaveLength(1);
    expect(start[0]).toMatch(/^\/usr\/bin\/cage -d -- \/usr\/bin\/chromium /);
    expect(start[0]!.split(' -- ')[0]!.split(/\s+/)).not.toContain('-s');
    const pre = one(browserUnit, 'ExecStartPre');
    expect(pre).toContain(`/opt/pickup-station/current/systemd/kiosk-policy.sh check ${POLICY_FILE}`);
    // After the secret's page is written and before Chromium: the last ExecStartPre.
    expect(pre.at(-1)).toBe(`/opt/pickup-station/current/systemd/kiosk-policy.sh check ${POLICY_FILE}`);
  });

  it('the kiosk user gets no device groups: logind gives its session the seat, nothing more (unit and DISPLAYS.md)', () => {
    const displays = readFileSync(join(SYSTEMD, '../hardware/DISPLAYS.md'), 'utf8');
    for (const text of [browserUnit, displays]) {
      const useradd = /useradd [^\n]*(?:\\\n[^\n]*)*pickup-kiosk/.exec(text.replace(/\n#\s+/g, '\n'))?.[0];
      expect(useradd).toBeDefined();
      expect(useradd).not.toMatch(/--groups|-G\b/);
    }
    expect(one(browserUnit, 'SupplementaryGroups')).toEqual([]);
    expect(one(browserUnit, 'PAMName')).toEqual(['login']);
  });

  it.runIf(HAVE_LOGIND_DEFAULTS)('logind: no getty on another console, no key handled; systemd: no Ctrl+Alt+Del burst action; sysctl: no magic SysRq', () => {
    const logind = readFileSync(join(SYSTEMD, 'logind-kiosk.conf'), 'utf8');
    const lines = (t: string) => t.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    const settings = new Map(lines(logind).map((l) => l.split('=') as [string, string]));
    expect(lines(logind)[0]).toBe('[Login]');
    expect([settings.get('NAutoVTs'), settings.get('ReserveVT')]).toEqual(['0', '0']);
    // Every key and switch handler this systemd's logind has (its logind.conf lists each, commented,
    // with its default): ignore. A handler a newer systemd adds shows here as one missing.
    const handlers = [...readFileSync(LOGIND_DEFAULTS, 'utf8').matchAll(/^#(Handle\w+)=/gm)].map((m) => m[1]!);
    expect(handlers).toContain('HandleRebootKeyLongPress');
    for (const h of handlers) expect(settings.get(h), h).toBe('ignore');
    expect([...settings.keys()].filter((k) => k.startsWith('Handle')).sort()).toEqual(handlers.sort());
    const system = readFileSync(join(SYSTEMD, 'system-keys.conf'), 'utf8');
    expect(lines(system)).toEqual(['[Manager]', 'CtrlAltDelBurstAction=none']);
    const sysctl = readFileSync(join(SYSTEMD, 'sysctl-kiosk.conf'), 'utf8');
    expect(lines(sysctl)).toEqual(['kernel.sysrq = 0']);
  });

  it("polkit: the kiosk user may activate its own local, active session (cage's seat), the station's user restart the kiosk browser's unit; nothing else for either; other users are polkit's defaults'", () => {
    // The rule file as polkitd runs it: a script calling polkit.addRule, in a context of its own;
    // the first rule that handles a question answers it.
    const Result = { YES: 'yes', NO: 'no', NOT_HANDLED: null };
    type Action = { id: string; lookup(key: string): string | undefined };
    const rules: ((action: Action, subject: { user: string; local: boolean; active: boolean }) => unknown)[] = [];
    const context = createContext({ polkit: { Result, addRule: (f: (typeof rules)[number]) => rules.push(f) } });
    runInContext(readFileSync(join(SYSTEMD, 'polkit-kiosk.rules'), 'utf8'), context);
    expect(rules).toHaveLength(2);
    const ask = (user: string, id: string, details: Record<string, string> = {}, local = true, active = true): unknown => {
      const action: Action = { id, lookup: (key) => details[key] };
      for (const rule of rules) {
        const r = rule(action, { user, local, active });
        if (r !== null) return r;
      }
      return null;
    };
    expect(ask('pickup-kiosk', 'org.freedesktop.login1.chvt')).toBe('yes');
    expect(ask('pickup-kiosk', 'org.freedesktop.login1.chvt', {}, true, false)).toBe('no');
    expect(ask('pickup-kiosk', 'org.freedesktop.login1.chvt', {}, false, true)).toBe('no');
    for (const id of [
      'org.freedesktop.login1.reboot',
      'org.freedesktop.login1.power-off',
      'org.freedesktop.login1.suspend',
      'org.freedesktop.systemd1.manage-units',
    ])
      expect(ask('pickup-kiosk', id), id).toBe('no');
    expect(ask('pickup-kiosk', 'org.freedesktop.systemd1.manage-units', { unit: 'pickup-station-kiosk.service', verb: 'restart' })).toBe('no');
    // The station's user: the one restart its kiosk page needs (the default restart command), nothing more.
    const restart = kioskDisplaySchema.parse({ kind: 'kiosk' }).browser.restartCommand;
    expect(restart).toEqual(['systemctl', '--no-ask-password', 'restart', 'pickup-station-kiosk.service']);
    expect(ask('pickup-station', 'org.freedesktop.systemd1.manage-units', { unit: restart![3]!, verb: restart![2]! })).toBe('yes');
    for (const [unit, verb] of [
      ['pickup-station-kiosk.service', 'stop'],
      ['pickup-station-kiosk.service', 'start'],
      ['pickup-station-kiosk.socket', 'restart'],
      ['pickup-station.service', 'restart'],
      ['getty@tty1.service', 'restart'],
      ['ssh.service', 'stop'],
    ] as const)
      expect(ask('pickup-station', 'org.freedesktop.systemd1.manage-units', { unit, verb }), `${verb} ${unit}`).toBe('no');
    for (const id of ['org.freedesktop.systemd1.manage-unit-files', 'org.freedesktop.login1.reboot', 'org.freedesktop.login1.chvt'])
      expect(ask('pickup-station', id, { unit: 'pickup-station-kiosk.service', verb: 'restart' }), id).toBe('no');
    expect(ask('technician', 'org.freedesktop.login1.reboot')).toBeNull();
    // The units' users are the ones the rules name.
    expect(one(browserUnit, 'User')).toEqual(['pickup-kiosk']);
    expect(one(readFileSync(join(SYSTEMD, 'pickup-station.service'), 'utf8'), 'User')).toEqual(['pickup-station']);
  });

  it("Chromium's managed policy: every URL blocked but the kiosk's page and its start page; no tools, files, downloads, printing, sign-in, passwords, autofill, extensions, other windows' modes", () => {
    const policy = JSON.parse(readFileSync(join(SYSTEMD, 'chromium-policy.json'), 'utf8')) as Record<string, unknown>;
    const port = kioskDisplaySchema.parse({ kind: 'kiosk' }).port;
    expect(policy['URLBlocklist']).toEqual(['*', 'javascript://*', 'file://*']);
    // The start page the unit writes (%t is /run for a system unit) and the page it sends Chromium to.
    expect(browserUnit).toContain('%t/pickup-kiosk/start.html http://127.0.0.1:8091/');
    expect(policy['URLAllowlist']).toEqual([`http://127.0.0.1:${port}/`, 'file:///run/pickup-kiosk/start.html']);
    expect(policy).toMatchObject({
      DeveloperToolsAvailability: 2,
      DownloadRestrictions: 3,
      PrintingEnabled: false,
      AllowFileSelectionDialogs: false,
      BrowserSignin: 0,
      PasswordManagerEnabled: false,
      AutofillAddressEnabled: false,
      AutofillCreditCardEnabled: false,
      ExtensionInstallBlocklist: ['*'],
      IncognitoModeAvailability: 2,
      BrowserGuestModeEnabled: false,
      BrowserAddPersonEnabled: false,
      DefaultPopupsSetting: 2,
    });
    // The unit's own flag and the policy agree: every window is a throwaway (incognito) one.
    expect(one(browserUnit, 'ExecStart')[0]).toContain(' --incognito ');
    const ok = spawnSync('sh', [POLICY_CHECK, 'check', join(SYSTEMD, 'chromium-policy.json')], { encoding: 'utf8' });
    expect([ok.status, ok.stderr]).toEqual([0, '']);
  });

  it('kiosk-policy.sh keeps the browser off when the policy is unreadable, not JSON or not an object, and warns when an edit reopens what it closed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiosk-policy-'));
    const check = (text: string | null) => {
      const f = join(dir, 'policy.json');
      if (text !== null) writeFileSync(f, text);
      const r = spawnSync('sh', [POLICY_CHECK, 'check', text === null ? join(dir, 'missing.json') : f], { encoding: 'utf8' });
      return { status: r.status, err: r.stderr.trim() };
    };
    // An administrator's edit with a trailing comma: Chromium would skip the whole file.
    const shipped = readFileSync(join(SYSTEMD, 'chromium-policy.json'), 'utf8');
    const broken = check(shipped.replace('"SearchSuggestEnabled": false', '"SearchSuggestEnabled": false,'));
    expect(broken.status).toBe(1);
    expect(broken.err).toMatch(/policy\.json: is not valid JSON \(.+\); the kiosk browser stays off rather than run without its policy$/);
    expect(check(null)).toMatchObject({ status: 1, err: expect.stringContaining('missing.json: cannot be read (ENOENT)') as unknown });
    expect(check('["*"]')).toMatchObject({ status: 1, err: expect.stringContaining('is not a JSON object') as unknown });
    expect(check('')).toMatchObject({ status: 1, err: expect.stringContaining('is not valid JSON') as unknown });
    const weakened = JSON.parse(shipped) as Record<string, unknown>;
    weakened['DeveloperToolsAvailability'] = 1;
    weakened['URLAllowlist'] = ['http://127.0.0.1:8091/', 'file:///run/pickup-kiosk/start.html', 'https://library.example/'];
    const w = check(JSON.stringify(weakened));
    expect(w.status).toBe(0);
    expect(w.err).toBe(`kiosk policy ${join(dir, 'policy.json')}: warning: no longer closes what the shipped policy closes: DeveloperToolsAvailability`);
    expect(spawnSync('sh', [POLICY_CHECK, 'nonsense']).status).toBe(2);
  });
});
