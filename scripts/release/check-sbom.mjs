#!/usr/bin/env node
/**
 * Checks a release's SBOM (scripts/release/sbom.mjs) two ways; exits 1 naming every problem:
 *
 *   node scripts/release/check-sbom.mjs <sbom.cdx.json> [--tree <release dir>]
 *
 * 1. against the CycloneDX 1.5 JSON schema vendored in scripts/release/schema/ (with its spdx and
 *    jsf schemas; ajv, no network: any other $ref fails), and by the CycloneDX library's own strict
 *    validator (@cyclonedx/cyclonedx-library, an exact devDependency: its schemas and its formats);
 * 2. with --tree, against what the release really contains: every npm package installed under
 *    node_modules/ (at any depth) is a component with its name, version and path; no component is a
 *    package the tree lacks; no component is a dev dependency (by the lockfile's dev flag or a name
 *    in package.json's devDependencies); a shipped node/bin/node is the runtime component with the
 *    binary's sha256.
 *
 * Runs with the host Node from the checkout (ajv and the CycloneDX library are devDependencies: the
 * build host's tree has them). The station's whole-system SBOM (`stationctl sbom --system`) is
 * checked with it too, without --tree.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'schema');
const { positionals, values } = parseArgs({ allowPositionals: true, options: { tree: { type: 'string' } } });
const [file] = positionals;
if (!file) {
  console.error('usage: check-sbom.mjs <sbom.cdx.json> [--tree <release dir>]');
  process.exit(2);
}

const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));

function schemaProblems(bom) {
  const ajv = new Ajv({
    strict: false,
    useDefaults: false,
    allErrors: true,
    loadSchema: (uri) => Promise.reject(new Error(`remote schema refused: ${uri}`)),
    schemas: {
      'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': readJson(join(SCHEMA_DIR, 'spdx.SNAPSHOT.schema.json')),
      'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': readJson(join(SCHEMA_DIR, 'jsf-0.82.SNAPSHOT.schema.json')),
    },
  });
  addFormats(ajv);
  // Formats ajv-formats lacks: an address with one @ (idn-email); iri-reference has no checker anywhere.
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  ajv.addFormat('iri-reference', true);
  const validate = ajv.compile(readJson(join(SCHEMA_DIR, 'bom-1.5.SNAPSHOT.schema.json')));
  // The schema takes any string as specVersion: this is a 1.5 document or it is not checked as one.
  const version = bom?.specVersion === '1.5' ? [] : [`schema: /specVersion is ${JSON.stringify(bom?.specVersion)}, this checker validates 1.5`];
  if (validate(bom)) return version;
  return version.concat((validate.errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`));
}

/** The CycloneDX library's own verdict (JsonStrictValidator for 1.5: its bundled schemas, no extra properties). */
async function libraryProblems(text) {
  const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot5).validate(text);
  if (errors === null) return [];
  return (Array.isArray(errors) ? errors : [errors]).map(
    (e) => `cyclonedx-library: ${e.instancePath || '/'} ${e.message ?? JSON.stringify(e)}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** Every node_modules/**\/package.json of a package (not of a package's own sub-folders). */
function installedPackages(dir) {
  const found = [];
  const visit = (nm) => {
    if (!existsSync(nm)) return;
    for (const entry of readdirSync(nm, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const dirs = entry.name.startsWith('@') ? readdirSync(join(nm, entry.name), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(nm, entry.name, e.name)) : [join(nm, entry.name)];
      for (const d of dirs) {
        if (existsSync(join(d, 'package.json'))) found.push(relative(dir, d).split(sep).join('/'));
        visit(join(d, 'node_modules'));
      }
    }
  };
  visit(join(dir, 'node_modules'));
  return found.sort();
}

const prop = (c, name) => c.properties?.find((p) => p.name === name)?.value;
const fullName = (c) => (c.group ? `${c.group}/${c.name}` : c.name);

function treeProblems(bom, dir) {
  const problems = [];
  const lock = readJson(join(dir, 'package-lock.json'));
  const pkg = readJson(join(dir, 'package.json'));
  const devNames = new Set(Object.keys(pkg.devDependencies ?? {}));
  const npm = (bom.components ?? []).filter((c) => c.purl?.startsWith('pkg:npm/') && prop(c, 'pickup-station:path')?.startsWith('node_modules/'));
  const byPath = new Map(npm.map((c) => [prop(c, 'pickup-station:path'), c]));
  for (const path of installedPackages(dir)) {
    const c = byPath.get(path);
    const installed = readJson(join(dir, path, 'package.json'));
    if (c === undefined) problems.push(`shipped module missing from the SBOM: ${path} (${installed.name}@${installed.version})`);
    else if (fullName(c) !== installed.name || c.version !== installed.version)
      problems.push(`${path}: the SBOM says ${fullName(c)}@${c.version}, the tree has ${installed.name}@${installed.version}`);
  }
  for (const [path, c] of byPath) {
    if (!existsSync(join(dir, path, 'package.json'))) problems.push(`component not in the release: ${path} (${fullName(c)}@${c.version})`);
    if (lock.packages?.[path]?.dev === true || devNames.has(fullName(c))) problems.push(`dev dependency in the SBOM: ${path} (${fullName(c)}@${c.version})`);
    if (!c.hashes?.length) problems.push(`component without a hash: ${path}`);
    if (!c.purl || !c.version) problems.push(`component without purl or version: ${path}`);
  }
  const nodeBin = join(dir, 'node/bin/node');
  const runtime = (bom.components ?? []).find((c) => c['bom-ref'] === 'runtime:node');
  if (existsSync(nodeBin)) {
    const sha = createHash('sha256').update(readFileSync(nodeBin)).digest('hex');
    if (runtime === undefined) problems.push('node/bin/node ships, the SBOM has no runtime:node component');
    else if (!runtime.hashes?.some((h) => h.alg === 'SHA-256' && h.content === sha)) problems.push(`runtime:node: the SBOM's sha256 is not node/bin/node's (${sha})`);
  } else if (runtime !== undefined) problems.push('the SBOM names a bundled node, the release has no node/bin/node');
  return problems;
}

let bom;
let text;
try {
  text = readFileSync(file, 'utf8');
  bom = JSON.parse(text);
} catch (e) {
  console.error(`check-sbom: ${file}: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
const problems = [...schemaProblems(bom), ...(await libraryProblems(text)), ...(values.tree ? treeProblems(bom, values.tree) : [])];
if (problems.length > 0) {
  for (const p of problems) console.error(`check-sbom: ${file}: ${p}`);
  process.exit(1);
}
console.log(
  `check-sbom: ${file}: CycloneDX ${bom.specVersion} schema ok (vendored schema, cyclonedx-library ${Spec.Version.v1dot5} strict)${values.tree ? `; ${bom.components.length} components match ${values.tree}` : ''}`,
);
