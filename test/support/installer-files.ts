/**
 * The installer as a release carries it: systemd/install.sh, its job files systemd/installer/*.sh,
 * which it sources, and its state table systemd/installer/states.tsv, which it reads; without them
 * it does not run. For the tests that make a stand-in release tree or bundle.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '../..');

/** The installer's files, path in a release tree (systemd/...) -> content. */
export function installerFiles(): Record<string, string> {
  const jobs = readdirSync(join(REPO, 'systemd/installer'))
    .filter((f) => f.endsWith('.sh') || f.endsWith('.tsv'))
    .sort();
  return Object.fromEntries(['install.sh', ...jobs.map((f) => `installer/${f}`)].map((f) => [`systemd/${f}`, readFileSync(join(REPO, 'systemd', f), 'utf8')]));
}

const systemdFile = (f: string): string => readFileSync(join(REPO, 'systemd', f), 'utf8');

/**
 * A small stand-in release of VERSION, path -> content, as the installer takes it (without its
 * manifest.json): the app as two one-line files, the real units (the station's own with
 * `unitSuffix` appended, to tell releases apart), the installer, the config template, udev rules.
 */
export function releaseFiles(version: string, unitSuffix = ''): Record<string, string> {
  return {
    'app/main.js': `// pickup-station ${version}\n`,
    'app/stationctl.js': `// stationctl ${version}\n`,
    'node_modules/pino/package.json': '{"name":"pino"}\n',
    'package.json': JSON.stringify({ name: 'pickup-station', version }) + '\n',
    'systemd/pickup-station.service': systemdFile('pickup-station.service') + unitSuffix,
    ...Object.fromEntries(
      [
        'pickup-station-kiosk.socket',
        'pickup-station-technician.socket',
        'config.template.json',
        'runtime-packages',
        'pickup-station-repair.service',
        'pickup-station-upgrade.service',
        'tmpfiles.conf',
        'modules-load.conf',
        'journald@pickup-station.conf',
        'usbguard-daemon.conf',
        'usbguard-dropin.conf',
        'pickup-station-usb-policy.path',
        'pickup-station-usb-policy.service',
      ].map((f) => [`systemd/${f}`, systemdFile(f)]),
    ),
    ...installerFiles(),
    'hardware/99-pickup-station.rules': 'SUBSYSTEM=="hidraw", GROUP="pickup-hid", MODE="0660"\n',
  };
}
