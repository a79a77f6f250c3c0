#!/usr/bin/env node
/**
 * Shipped in the bundle as tools/check-bundle.mjs; runs with the node that will run the station
 * (on the board, or emulated in CI). Plain JS, no dependencies beyond the bundle's own.
 *
 *   node tools/check-bundle.mjs [bundle dir]      (default: the folder above tools/)
 *
 * Checks, each reported on its own line (all of them run; exit 1 if any failed):
 *   integrity  every file in manifest.json is present with its sha256 and size
 *   node       this node's major and ABI are the ones the addons were built for
 *   glibc      this system's glibc is at least the newest version the addons need
 *   elf        every .node addon is an ELF of this process's architecture
 *   load       every .node addon loads (require of the file itself)
 *   isolated   no devDependency resolves from the bundle (a bundle unpacked inside a dev
 *              checkout would silently use the checkout's node_modules)
 *   package    epoll, onoff, @serialport/bindings-cpp, serialport and node-hid load through their
 *              own entry points (so each picks the prebuild this node would pick)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const require = createRequire(join(dir, 'package.json'));
const failures = [];

function report(ok, check, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${check.padEnd(9)} ${what}${detail ? `  (${detail})` : ''}`);
  if (!ok) failures.push(`${check} ${what}`);
}

function firstLine(e) {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

function walkAddons(root, out = []) {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = join(root, entry.name);
    if (entry.isDirectory()) walkAddons(full, out);
    else if (entry.name.endsWith('.node')) out.push(full);
  }
  return out.sort();
}

const ELF_MACHINES = { 183: 'arm64', 40: 'arm', 62: 'x64', 3: 'ia32' };

function checkIntegrity(manifest) {
  let bad = 0;
  const problem = (path, detail) => {
    report(false, 'integrity', path, detail);
    bad++;
  };
  for (const [path, want] of Object.entries(manifest.checksums ?? {})) {
    const full = join(dir, path);
    if (!existsSync(full)) {
      problem(path, 'missing');
      continue;
    }
    const data = readFileSync(full);
    const sum = createHash('sha256').update(data).digest('hex');
    const size = manifest.sizes?.[path];
    if (sum !== want || (size !== undefined && data.length !== size)) problem(path, `sha256 ${sum.slice(0, 12)}… size ${data.length}, manifest ${want.slice(0, 12)}… size ${size}`);
  }
  for (const [path, want] of Object.entries(manifest.symlinks ?? {})) {
    let target = null;
    try {
      target = readlinkSync(join(dir, path));
    } catch {
      // missing or not a link
    }
    if (target !== want) problem(path, `symlink to ${target}, manifest ${want}`);
  }
  const count = Object.keys(manifest.checksums ?? {}).length;
  if (count === 0) problem('manifest.json', 'no checksums');
  else if (bad === 0) report(true, 'integrity', `${count} files and ${Object.keys(manifest.symlinks ?? {}).length} symlinks match manifest.json`);
}

function checkNode(manifest) {
  const major = Number(process.versions.node.split('.')[0]);
  const abi = Number(process.versions.modules);
  const ok = major === manifest.node.major && abi === manifest.node.abi && process.arch === (manifest.arch === 'armv7' ? 'arm' : manifest.arch);
  report(ok, 'node', `${process.version} ${process.arch} ABI ${abi}`, `bundle: node ${manifest.node.major}.x ABI ${manifest.node.abi} ${manifest.arch}`);
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

function checkGlibc(manifest) {
  if (!manifest.glibcMin) return;
  const have = process.report.getReport().header.glibcVersionRuntime;
  report(typeof have === 'string' && compareVersions(have, manifest.glibcMin) >= 0, 'glibc', `${have ?? 'not glibc'}`, `addons need >= ${manifest.glibcMin}`);
}

function checkAddon(file) {
  const rel = relative(dir, file).split(sep).join('/');
  const header = readFileSync(file).subarray(0, 20);
  const isElf = header.length >= 20 && header.readUInt32BE(0) === 0x7f454c46;
  const machine = isElf ? (ELF_MACHINES[header.readUInt16LE(18)] ?? `e_machine ${header.readUInt16LE(18)}`) : 'not ELF';
  report(machine === process.arch, 'elf', rel, machine);
  try {
    require(file);
    report(true, 'load', rel);
  } catch (e) {
    report(false, 'load', rel, firstLine(e));
  }
}

/** Each addon-carrying package through its own loader, the way the station will load it. */
function checkPackages() {
  const probes = {
    epoll: (m) => typeof m.Epoll === 'function',
    onoff: (m) => typeof m.Gpio === 'function' && typeof m.Gpio.accessible === 'boolean',
    '@serialport/bindings-cpp': (m) => typeof m.autoDetect().open === 'function',
    serialport: (m) => typeof m.SerialPort === 'function',
    'node-hid': (m) => {
      // The binding is loaded lazily; devices() loads it (hidraw variant, the default on Linux).
      m.setDriverType('hidraw');
      return Array.isArray(m.devices());
    },
  };
  for (const [name, probe] of Object.entries(probes)) {
    try {
      report(probe(require(name)) === true, 'package', name);
    } catch (e) {
      report(false, 'package', name, firstLine(e));
    }
  }
}

console.log(`check-bundle: ${dir} with node ${process.version} (${process.platform}-${process.arch})`);
const manifestFile = join(dir, 'manifest.json');
if (existsSync(manifestFile) && statSync(manifestFile).isFile()) {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  console.log(`bundle: ${manifest.name} ${manifest.version} linux-${manifest.arch}, commit ${manifest.git.commit.slice(0, 12)}${manifest.git.dirty ? ' (dirty)' : ''}`);
  checkIntegrity(manifest);
  checkNode(manifest);
  checkGlibc(manifest);
} else {
  report(false, 'integrity', 'manifest.json', 'missing');
}
for (const name of Object.keys(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).devDependencies ?? {})) {
  let where = null;
  try {
    where = require.resolve(name);
  } catch {
    // not resolvable: as it must be
  }
  if (where !== null) report(false, 'isolated', name, `devDependency resolves to ${where}`);
}
if (!failures.some((f) => f.startsWith('isolated'))) report(true, 'isolated', 'no devDependency resolves from here');
const addons = walkAddons(join(dir, 'node_modules'));
if (addons.length === 0) report(false, 'elf', 'node_modules', 'no .node addons found');
for (const file of addons) checkAddon(file);
checkPackages();

if (failures.length > 0) {
  console.log(`check-bundle: ${failures.length} check(s) FAILED`);
  process.exit(1);
}
console.log('check-bundle: all checks passed');
