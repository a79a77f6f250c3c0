/**
 * The release's SBOM as the builds make and check it (scripts/release/sbom.mjs, check-sbom.mjs run
 * as the build runs them), on a small release tree made here: a production package, a scoped one
 * with a nested dependency, a dev dependency in the lockfile, a shipped node/bin/node. The checker
 * fails on each thing it is there for: a shipped module the SBOM lacks, a dev dependency in it, a
 * runtime whose bytes are not the ones named, a document the CycloneDX 1.5 schema refuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const SBOM = join(REPO, 'scripts/release/sbom.mjs');
const CHECK = join(REPO, 'scripts/release/check-sbom.mjs');
const SHA512 = (c: string) => `sha512-${Buffer.alloc(64, c).toString('base64')}`;

let work: string;
let tree: string;
let out: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sbom-test-'));
  tree = join(work, 'pickup-station-0.2.0');
  out = join(work, 'sbom.cdx.json');
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'pickup-station',
      version: '0.2.0',
      license: 'UNLICENSED',
      dependencies: { alpha: '1.0.0', '@scope/beta': '2.0.0' },
      devDependencies: { delta: '1.0.0' },
    }),
    'package-lock.json': JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': { name: 'pickup-station', version: '0.2.0', dependencies: { alpha: '1.0.0', '@scope/beta': '2.0.0' }, devDependencies: { delta: '1.0.0' } },
        'node_modules/alpha': { version: '1.0.0', integrity: SHA512('a'), license: 'MIT' },
        'node_modules/@scope/beta': { version: '2.0.0', integrity: SHA512('b'), license: '(MIT OR Apache-2.0)', dependencies: { gamma: '^3.0.0' } },
        'node_modules/@scope/beta/node_modules/gamma': { version: '3.1.0', integrity: SHA512('c'), license: 'ISC' },
        'node_modules/delta': { version: '1.0.0', integrity: SHA512('d'), license: 'MIT', dev: true },
      },
    }),
    'node_modules/alpha/package.json': JSON.stringify({ name: 'alpha', version: '1.0.0' }),
    'node_modules/@scope/beta/package.json': JSON.stringify({ name: '@scope/beta', version: '2.0.0' }),
    'node_modules/@scope/beta/node_modules/gamma/package.json': JSON.stringify({ name: 'gamma', version: '3.1.0' }),
    'node/bin/node': 'an arm64 node binary stands here\n',
    'systemd/runtime-packages': readFileSync(join(REPO, 'systemd/runtime-packages'), 'utf8'),
    'vendor.json': JSON.stringify({ securityContact: 'mailto:security@vendor.test.invalid', supportUntil: '2099-12-31' }),
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(tree, f, '..'), { recursive: true });
    writeFileSync(join(tree, f), text);
  }
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

const run = (script: string, args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
const depends = () => run(SBOM, ['depends', tree, '--glibc-min', '2.34']).stdout.trim();
function write(): Record<string, unknown> & { components: Record<string, unknown>[] } {
  const r = run(SBOM, ['write', tree, '--kind', 'bundle', '--arch', 'arm64', '--time', '1767225600', '--depends', depends(), '--out', out]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown> & { components: Record<string, unknown>[] };
}
const check = () => run(CHECK, [out, '--tree', tree]);
const edit = (f: (bom: { components: Record<string, unknown>[] }) => void) => {
  const bom = JSON.parse(readFileSync(out, 'utf8')) as { components: Record<string, unknown>[] };
  f(bom);
  writeFileSync(out, JSON.stringify(bom));
};

it('lists what ships: npm packages with purl, licence and hash, the Node runtime with its sha256 and pin, the Debian dependencies; passes schema and tree', () => {
  const bom = write();
  expect(bom).toMatchObject({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    metadata: { timestamp: '2026-01-01T00:00:00Z', component: { name: 'pickup-station', version: '0.2.0' } },
  });
  const byRef = new Map(bom.components.map((c) => [c['bom-ref'], c]));
  expect(byRef.get('npm:node_modules/alpha')).toMatchObject({
    name: 'alpha',
    version: '1.0.0',
    purl: 'pkg:npm/alpha@1.0.0',
    licenses: [{ license: { id: 'MIT' } }],
    hashes: [{ alg: 'SHA-512', content: '61'.repeat(64) }],
  });
  expect(byRef.get('npm:node_modules/@scope/beta')).toMatchObject({
    group: '@scope',
    name: 'beta',
    purl: 'pkg:npm/%40scope/beta@2.0.0',
    licenses: [{ expression: 'MIT OR Apache-2.0' }],
  });
  expect(byRef.get('npm:node_modules/@scope/beta/node_modules/gamma')).toMatchObject({ name: 'gamma', version: '3.1.0' });
  expect([...byRef.keys()].filter((r) => String(r).includes('delta'))).toEqual([]);
  const node = byRef.get('runtime:node') as { version: string; hashes: { content: string }[]; properties: { name: string; value: string }[] };
  expect(node.version).toMatch(/^24\./);
  expect(node.hashes[0]?.content).toMatch(/^[0-9a-f]{64}$/);
  expect(node.properties.find((p) => p.name === 'pickup-station:registry-tarball-integrity')?.value).toMatch(/^sha512-/);
  expect(byRef.get('deb:libc6')).toMatchObject({ scope: 'required', properties: [{ name: 'pickup-station:debian-depends', value: 'libc6 (>= 2.34)' }] });
  // The armv7 release runs Debian's nodejs: it is a declared dependency there, not a component of ours.
  expect(depends()).not.toContain('nodejs');
  const graph = bom.dependencies as { ref: string; dependsOn: string[] }[];
  expect(graph.find((d) => d.ref === 'npm:node_modules/@scope/beta')?.dependsOn).toEqual(['npm:node_modules/@scope/beta/node_modules/gamma']);
  expect(graph.find((d) => d.ref === 'release:pickup-station')?.dependsOn).toEqual(
    expect.arrayContaining(['runtime:node', 'deb:libc6', 'npm:node_modules/alpha']),
  );
  const r = check();
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  // Same tree, same bytes.
  const first = readFileSync(out, 'utf8');
  write();
  expect(readFileSync(out, 'utf8')).toBe(first);
});

it('fails when a shipped module is missing from it', () => {
  write();
  mkdirSync(join(tree, 'node_modules/epsilon'), { recursive: true });
  writeFileSync(join(tree, 'node_modules/epsilon/package.json'), JSON.stringify({ name: 'epsilon', version: '0.0.1' }));
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('shipped module missing from the SBOM: node_modules/epsilon (epsilon@0.0.1)');
});

it('fails when a dev dependency is in it (by the lockfile, and by package.json devDependencies)', () => {
  write();
  mkdirSync(join(tree, 'node_modules/delta'), { recursive: true });
  writeFileSync(join(tree, 'node_modules/delta/package.json'), JSON.stringify({ name: 'delta', version: '1.0.0' }));
  edit((bom) =>
    bom.components.push({
      type: 'library',
      'bom-ref': 'npm:node_modules/delta',
      name: 'delta',
      version: '1.0.0',
      purl: 'pkg:npm/delta@1.0.0',
      hashes: [{ alg: 'SHA-512', content: '64'.repeat(64) }],
      properties: [{ name: 'pickup-station:path', value: 'node_modules/delta' }],
    }),
  );
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('dev dependency in the SBOM: node_modules/delta (delta@1.0.0)');
});

it('fails when the shipped node is not the one it names', () => {
  write();
  writeFileSync(join(tree, 'node/bin/node'), 'another binary\n');
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("runtime:node: the SBOM's sha256 is not node/bin/node's");
});

it('fails on what the CycloneDX 1.5 schema refuses, naming where', () => {
  write();
  edit((bom) => {
    (bom as unknown as { specVersion: string }).specVersion = '1.4';
    bom.components[1]!.type = 'gadget';
    bom.components[2]!.hashes = [{ alg: 'SHA-512', content: 'not hex' }];
  });
  const r = run(CHECK, [out]);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('schema: /specVersion is "1.4", this checker validates 1.5');
  expect(r.stderr).toMatch(/schema: \/components\/1\/type must be equal to one of the allowed values/);
  expect(r.stderr).toMatch(/schema: \/components\/2\/hashes\/0\/content must match pattern/);
  // The CycloneDX library's own strict validator says so too, by its own schema copy.
  expect(r.stderr).toMatch(/cyclonedx-library: \/components\/1\/type must be equal to one of the allowed values/);
});

it("records the build host's tools as the formulation, each Debian package at its exact version", () => {
  const toolchain = join(work, 'toolchain.json');
  writeFileSync(
    toolchain,
    JSON.stringify([
      { package: 'g++-12-aarch64-linux-gnu', version: '12.2.0-14cross1', architecture: 'amd64' },
      { package: 'libc6-dev-arm64-cross', version: '2.36-8cross1', architecture: 'all' },
      { package: 'tar', version: '1.34+dfsg-1.2+deb12u1', architecture: 'amd64' },
    ]),
  );
  const r = run(SBOM, [
    'write',
    tree,
    '--kind',
    'bundle',
    '--arch',
    'arm64',
    '--time',
    '1767225600',
    '--depends',
    depends(),
    '--toolchain',
    toolchain,
    '--out',
    out,
  ]);
  expect(r.status, r.stderr).toBe(0);
  const bom = JSON.parse(readFileSync(out, 'utf8')) as { formulation: { components: Record<string, unknown>[] }[] };
  expect(bom.formulation[0]?.components).toEqual([
    expect.objectContaining({
      name: 'g++-12-aarch64-linux-gnu',
      version: '12.2.0-14cross1',
      purl: 'pkg:deb/debian/g%2B%2B-12-aarch64-linux-gnu@12.2.0-14cross1?arch=amd64',
    }),
    expect.objectContaining({ name: 'libc6-dev-arm64-cross', purl: 'pkg:deb/debian/libc6-dev-arm64-cross@2.36-8cross1?arch=all' }),
    expect.objectContaining({ name: 'tar', version: '1.34+dfsg-1.2+deb12u1', purl: 'pkg:deb/debian/tar@1.34%2Bdfsg-1.2%2Bdeb12u1?arch=amd64' }),
  ]);
  const c = check();
  expect(c.stderr).toBe('');
  expect(c.status).toBe(0);
});
