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
 *   package    epoll, onoff, i2c-bus, @serialport/bindings-cpp, serialport and node-hid load through their
 *              own entry points (so each picks the prebuild this node would pick)
 *   needed     every shared library an addon links (ELF DT_NEEDED) is glibc's or provided by a
 *              package of systemd/runtime-packages, the list systemd/install.sh installs; one line
 *              per library with the addons that need it and its package
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

/** Sonames that come with glibc itself (package libc6, on every Debian system). */
const GLIBC_SONAME =
  /^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|ld-linux[-.\w]*\.so\.\d+)$/;

/**
 * DT_NEEDED entries of an ELF shared object (32- or 64-bit, little-endian): the dynamic segment's
 * string offsets resolved through DT_STRTAB, whose address maps to the file through PT_LOAD.
 */
function elfNeeded(data) {
  if (data.length < 52 || data.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  const is64 = data[4] === 2;
  if (data[5] !== 1) throw new Error('big-endian ELF not supported');
  const word = (off) => (is64 ? Number(data.readBigUInt64LE(off)) : data.readUInt32LE(off));
  const phoff = word(is64 ? 0x20 : 0x1c);
  const phentsize = data.readUInt16LE(is64 ? 0x36 : 0x2a);
  const phnum = data.readUInt16LE(is64 ? 0x38 : 0x2c);
  const loads = [];
  let dynamic = null;
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    const type = data.readUInt32LE(p);
    const offset = is64 ? word(p + 8) : word(p + 4);
    const vaddr = is64 ? word(p + 16) : word(p + 8);
    const filesz = is64 ? word(p + 32) : word(p + 16);
    if (type === 1) loads.push({ offset, vaddr, filesz });
    if (type === 2) dynamic = { offset, filesz };
  }
  if (dynamic === null) return [];
  const entrySize = is64 ? 16 : 8;
  const needed = [];
  let strtab = null;
  for (let p = dynamic.offset; p + entrySize <= dynamic.offset + dynamic.filesz; p += entrySize) {
    const tag = word(p);
    const val = word(p + entrySize / 2);
    if (tag === 0) break;
    if (tag === 1) needed.push(val);
    if (tag === 5) strtab = val;
  }
  if (strtab === null) throw new Error('no DT_STRTAB');
  const seg = loads.find((l) => strtab >= l.vaddr && strtab < l.vaddr + l.filesz);
  if (!seg) throw new Error('DT_STRTAB outside every PT_LOAD');
  const base = strtab - seg.vaddr + seg.offset;
  return needed.map((off) => {
    const start = base + off;
    const end = data.indexOf(0, start);
    return data.toString('latin1', start, end < 0 ? data.length : end);
  });
}

/** systemd/runtime-packages: soname -> Debian package (see that file). */
function runtimePackages(text) {
  const bySoname = new Map();
  for (const raw of text.split('\n')) {
    const [pkg, ...sonames] = raw.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean);
    if (pkg === undefined) continue;
    for (const so of sonames) if (so !== '-') bySoname.set(so, pkg);
  }
  return bySoname;
}

function checkNeeded(addons) {
  const listFile = join(dir, 'systemd', 'runtime-packages');
  if (!existsSync(listFile)) {
    report(false, 'needed', 'systemd/runtime-packages', 'missing: which packages does install.sh install?');
    return;
  }
  const packages = runtimePackages(readFileSync(listFile, 'utf8'));
  const users = new Map();
  for (const file of addons) {
    const rel = relative(dir, file).split(sep).join('/');
    let needed;
    try {
      needed = elfNeeded(readFileSync(file));
    } catch (e) {
      report(false, 'needed', rel, firstLine(e));
      continue;
    }
    for (const so of needed) users.set(so, [...(users.get(so) ?? []), rel]);
  }
  for (const [so, by] of [...users].sort(([a], [b]) => a.localeCompare(b))) {
    const who = by.length === 1 ? by[0] : `${by.length} addons`;
    if (GLIBC_SONAME.test(so)) report(true, 'needed', so, `glibc; ${who}`);
    else if (packages.has(so)) report(true, 'needed', so, `package ${packages.get(so)}, installed by install.sh; ${who}`);
    else report(false, 'needed', so, `neither glibc's nor in systemd/runtime-packages: install.sh would not install it; needed by ${by.join(', ')}`);
  }
}

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
    if (sum !== want || (size !== undefined && data.length !== size))
      problem(path, `sha256 ${sum.slice(0, 12)}… size ${data.length}, manifest ${want.slice(0, 12)}… size ${size}`);
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
    'i2c-bus': (m) => typeof m.openPromisified === 'function',
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
  console.log(
    `bundle: ${manifest.name} ${manifest.version} linux-${manifest.arch}, commit ${manifest.git.commit.slice(0, 12)}${manifest.git.dirty ? ' (dirty)' : ''}`,
  );
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
checkNeeded(addons);
checkPackages();

if (failures.length > 0) {
  console.log(`check-bundle: ${failures.length} check(s) FAILED`);
  process.exit(1);
}
console.log('check-bundle: all checks passed');
