#!/usr/bin/env node
/**
 * Checks a staged bundle's node_modules against the lockfile (production only), then writes its
 * manifest.json: what it is (name, version, arch, the Node major/ABI its addons are built for,
 * git commit) and the sha256 + size of every file (`checksums` is the format systemd/install.sh
 * verifies).
 *
 *   node scripts/bundle/manifest.mjs <app dir> --arch A --node-version V --node-abi N --commit C
 *     --dirty true|false --commit-time EPOCH --built-at EPOCH --node-bundled 0|1 --glibc-min V
 *     --lock <repo package-lock.json>
 *
 * Runs with the host Node (no build step, no dependencies).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    arch: { type: 'string' },
    'node-version': { type: 'string' },
    'node-abi': { type: 'string' },
    commit: { type: 'string' },
    dirty: { type: 'string' },
    'commit-time': { type: 'string' },
    'built-at': { type: 'string' },
    'glibc-min': { type: 'string' },
    'node-bundled': { type: 'string' },
    lock: { type: 'string' },
    toolchain: { type: 'string' },
  },
});
const app = positionals[0];
if (!app || !values.arch || !values['node-version'] || !values['node-abi'] || !values.lock) {
  console.error('usage: manifest.mjs <app dir> --arch A --node-version V --node-abi N --lock FILE [...]');
  process.exit(2);
}

/** Every file under dir, as sorted POSIX paths relative to root. */
function walk(root, dir = root, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, full, out);
    else if (entry.isFile() || entry.isSymbolicLink()) out.push(relative(root, full).split(sep).join('/'));
  }
  return out.sort();
}

/**
 * No devDependency may be in the bundle: no lockfile path marked dev, and no devDependency's
 * name anywhere in the tree. Every production path must be there.
 */
function checkProductionTree(lockFile, pkg) {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  const problems = [];
  const devNames = new Set(Object.keys(pkg.devDependencies ?? {}));
  let installed = 0;
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path.startsWith('node_modules/')) continue;
    const present = existsSync(join(app, path));
    if (present) installed++;
    if (entry.dev === true && present) problems.push(`dev dependency present: ${path}`);
    if (entry.dev !== true && entry.optional !== true && entry.devOptional !== true && entry.peer !== true && !present)
      problems.push(`production dependency missing: ${path}`);
  }
  // A devDependency's name at any depth (a nested copy would not show as a top-level path).
  for (const file of walk(join(app, 'node_modules'))) {
    const m = /^(?:.*\/node_modules\/)?((?:@[^/]+\/)?[^/@]+)\/package\.json$/.exec(file);
    if (m?.[1] !== undefined && devNames.has(m[1])) problems.push(`devDependency ${m[1]} present: node_modules/${file}`);
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(`manifest: ${p}`);
    process.exit(1);
  }
  return installed;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** ELF machine of an addon, from its header (EM_AARCH64 183, EM_ARM 40, EM_X86_64 62). */
function elfMachine(file) {
  const b = readFileSync(file).subarray(0, 20);
  const names = { 183: 'aarch64', 40: 'arm', 62: 'x86_64', 3: 'i386' };
  return names[b.readUInt16LE(18)] ?? `e_machine ${b.readUInt16LE(18)}`;
}

const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
const productionPackages = checkProductionTree(values.lock, pkg);
const checksums = {};
const sizes = {};
const symlinks = {};
for (const path of walk(app).filter((f) => f !== 'manifest.json')) {
  const full = join(app, path);
  const st = lstatSync(full);
  if (st.isSymbolicLink()) symlinks[path] = readlinkSync(full);
  else {
    checksums[path] = sha256(full);
    sizes[path] = st.size;
  }
}
const addons = Object.keys(checksums)
  .filter((path) => path.endsWith('.node'))
  .map((path) => ({ path, machine: elfMachine(join(app, path)), size: sizes[path], sha256: checksums[path] }));
const nodeVersion = values['node-version'];
// The vendor's inputs (scripts/release/inputs.sh wrote vendor.json before this): who to tell about a
// flaw, the policy, until when the release line gets security fixes (and why a shorter period).
const vendorFile = join(app, 'vendor.json');
const vendor = existsSync(vendorFile) ? JSON.parse(readFileSync(vendorFile, 'utf8')) : null;
const commitTime = Number(values['commit-time']);

const manifest = {
  name: pkg.name,
  version: pkg.version,
  platform: 'linux',
  arch: values.arch,
  libc: 'glibc',
  // The newest GLIBC_ symbol version the addons need: the board's glibc must be at least this.
  glibcMin: values['glibc-min'] || null,
  node: {
    // The board's node must have this major (and so this ABI): epoll is compiled for it.
    major: Number(nodeVersion.split('.')[0]),
    abi: Number(values['node-abi']),
    headers: nodeVersion,
    engines: pkg.engines?.node ?? null,
    bundled: values['node-bundled'] === '1' ? 'node/bin/node' : null,
  },
  git: {
    commit: values.commit ?? 'unknown',
    dirty: values.dirty === 'true',
    commitTime: Number.isFinite(commitTime) ? new Date(commitTime * 1000).toISOString() : null,
  },
  builtAt: new Date(values['built-at'] ? Number(values['built-at']) * 1000 : Date.now()).toISOString(),
  // The Debian packages whose tools made what ships (the cross compiler, binutils, tar, gzip):
  // scripts/bundle/build.sh's record_toolchain.
  builtWith: {
    node: process.version,
    host: `${process.platform}-${process.arch}`,
    toolchain: values.toolchain ? JSON.parse(readFileSync(values.toolchain, 'utf8')) : null,
  },
  vendor:
    vendor === null
      ? null
      : {
          securityContact: vendor.securityContact,
          securityPolicyUrl: vendor.securityPolicyUrl ?? null,
          supportUntil: vendor.supportUntil,
          supportUntilReason: vendor.supportUntilReason ?? null,
        },
  sbom: existsSync(join(app, 'sbom.cdx.json')) ? 'sbom.cdx.json' : null,
  // What systemd/install.sh reads (its documented format): the Node major the addons need and
  // the sha256 of every regular file, by path in the bundle.
  nodeMajor: Number(nodeVersion.split('.')[0]),
  dependencies: pkg.dependencies,
  productionPackages,
  addons,
  checksums,
  sizes,
  // node_modules/.bin links: not files of their own, recorded by target.
  symlinks,
};
writeFileSync(join(app, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
const total = Object.values(sizes).reduce((n, size) => n + size, 0);
console.log(
  `manifest: ${Object.keys(checksums).length} files + ${Object.keys(symlinks).length} symlinks, ${(total / 1048576).toFixed(1)} MiB, ${addons.length} addons, ${productionPackages} production packages, no dev dependencies`,
);
