/**
 * The release bundle's host-side guards, on a tiny fake bundle: scripts/bundle/manifest.mjs refuses
 * a tree with a dev dependency (by lockfile path or by name at any depth) or without a production
 * one, and writes checksums in the format systemd/install.sh verifies; check-bundle.mjs (shipped in
 * the bundle) notices a changed file. The real bundle is proven under emulation by
 * scripts/bundle/verify-emulated.sh.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

const SCRIPTS = join(import.meta.dirname, '../../scripts/bundle');

let app: string;
let lock: string;

function writeJson(file: string, value: unknown): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

function manifest() {
  const r = spawnSync(
    process.execPath,
    [
      join(SCRIPTS, 'manifest.mjs'),
      app,
      '--arch',
      'arm64',
      '--node-version',
      '20.20.2',
      '--node-abi',
      '115',
      '--commit',
      'abc',
      '--dirty',
      'false',
      '--commit-time',
      '1700000000',
      '--node-bundled',
      '0',
      '--lock',
      lock,
    ],
    { encoding: 'utf8' },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeEach(() => {
  const root = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  app = join(root, 'pickup-station-0.0.1');
  lock = join(root, 'package-lock.json');
  writeJson(join(app, 'package.json'), { name: 'pickup-station', version: '0.0.1', dependencies: { prod: '1.0.0' }, devDependencies: { devtool: '1.0.0' } });
  writeJson(join(app, 'node_modules/prod/package.json'), { name: 'prod', version: '1.0.0' });
  writeFileSync(join(app, 'README.md'), 'hello\n');
  writeJson(lock, {
    lockfileVersion: 3,
    packages: {
      '': { name: 'pickup-station' },
      'node_modules/prod': { version: '1.0.0' },
      'node_modules/devtool': { version: '1.0.0', dev: true },
    },
  });
});

describe('bundle manifest', () => {
  it('records name, version, arch, node major/ABI and a sha256 + size of every file', () => {
    const r = manifest();
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(app, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(m).toMatchObject({
      name: 'pickup-station',
      version: '0.0.1',
      arch: 'arm64',
      nodeMajor: 20,
      node: { major: 20, abi: 115 },
      git: { commit: 'abc', dirty: false },
    });
    expect(m['checksums']).toEqual({
      'README.md': '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
      'node_modules/prod/package.json': expect.stringMatching(/^[0-9a-f]{64}$/),
      'package.json': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(m['sizes']).toMatchObject({ 'README.md': 6 });
  });

  it('refuses a dev dependency at its lockfile path', () => {
    writeJson(join(app, 'node_modules/devtool/package.json'), { name: 'devtool', version: '1.0.0' });
    const r = manifest();
    expect(r.code).toBe(1);
    expect(r.err).toContain('dev dependency present: node_modules/devtool');
  });

  it('refuses a devDependency by name anywhere in the tree', () => {
    writeJson(join(app, 'node_modules/prod/node_modules/devtool/package.json'), { name: 'devtool', version: '1.0.0' });
    const r = manifest();
    expect(r.code).toBe(1);
    expect(r.err).toContain('devDependency devtool present: node_modules/prod/node_modules/devtool/package.json');
  });

  it('refuses a tree that lacks a production dependency', () => {
    rmSync(join(app, 'node_modules/prod'), { recursive: true });
    const r = manifest();
    expect(r.code).toBe(1);
    expect(r.err).toContain('production dependency missing: node_modules/prod');
  });
});

describe('check-bundle (shipped as tools/check-bundle.mjs)', () => {
  it('passes the integrity check as built and fails it after a file changed', () => {
    expect(manifest().code).toBe(0);
    const check = () => spawnSync(process.execPath, [join(SCRIPTS, 'check-bundle.mjs'), app], { encoding: 'utf8' }).stdout;
    expect(check()).toMatch(/^ok {3}integrity 3 files and 0 symlinks match manifest\.json/m);
    writeFileSync(join(app, 'README.md'), 'hellO\n');
    const out = check();
    expect(out).toMatch(/^FAIL integrity README\.md/m);
    // This fake bundle has no addons: that is a failure too, never a vacuous pass.
    expect(out).toMatch(/^FAIL elf +node_modules +\(no \.node addons found\)/m);
  });
});

describe('check-bundle: the shared libraries the addons link', () => {
  // The host's real node-hid hidraw addon: it links libudev.so.1 and libusb-1.0.so.0 beside glibc's.
  const HIDRAW = join(import.meta.dirname, '../../node_modules/node-hid/prebuilds/HID_hidraw-linux-x64/node-napi-v4.node');
  const withAddon = (runtimePackages: string | null) => {
    mkdirSync(join(app, 'node_modules/node-hid/prebuilds/HID_hidraw-linux-x64'), { recursive: true });
    copyFileSync(HIDRAW, join(app, 'node_modules/node-hid/prebuilds/HID_hidraw-linux-x64/node-napi-v4.node'));
    if (runtimePackages !== null) {
      mkdirSync(join(app, 'systemd'), { recursive: true });
      writeFileSync(join(app, 'systemd/runtime-packages'), runtimePackages);
    }
    expect(manifest().code).toBe(0);
    return spawnSync(process.execPath, [join(SCRIPTS, 'check-bundle.mjs'), app], { encoding: 'utf8' }).stdout;
  };

  it("lists each NEEDED library with its package from the project's own systemd/runtime-packages", () => {
    const out = withAddon(readFileSync(join(import.meta.dirname, '../../systemd/runtime-packages'), 'utf8'));
    expect(out).toMatch(
      /^ok {3}needed +libusb-1\.0\.so\.0 +\(package libusb-1\.0-0, installed by install\.sh; node_modules\/node-hid\/prebuilds\/HID_hidraw-linux-x64\/node-napi-v4\.node\)/m,
    );
    expect(out).toMatch(/^ok {3}needed +libudev\.so\.1 +\(package libudev1, installed by install\.sh/m);
    expect(out).toMatch(/^ok {3}needed +libc\.so\.6 +\(glibc/m);
    expect(out).not.toMatch(/^FAIL needed/m);
  });

  it('fails for a library that no package of the list provides', () => {
    const out = withAddon('libudev1 libudev.so.1\ngpiod -\n');
    expect(out).toMatch(
      /^FAIL needed +libusb-1\.0\.so\.0 +\(neither glibc's nor in systemd\/runtime-packages: install\.sh would not install it; needed by node_modules\/node-hid/m,
    );
    expect(out).toMatch(/^ok {3}needed +libudev\.so\.1/m);
  });

  it('fails when the bundle has no list at all', () => {
    expect(withAddon(null)).toMatch(/^FAIL needed +systemd\/runtime-packages +\(missing/m);
  });
});
