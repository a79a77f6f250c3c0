#!/usr/bin/env node
/**
 * Test releases for the upgrade proof (packaging/test/e2e.sh): a copy of a real release tarball
 * under another version, optionally broken on purpose, with its manifest's version and checksums
 * brought in line (so every check the installer makes passes: only the release's behaviour differs).
 *
 *   node packaging/test/restamp.mjs IN.tar.gz OUT_DIR VERSION [--break exit|hang]
 *     -> OUT_DIR/pickup-station-VERSION-linux-<arch>.tar.gz
 *
 *   --break exit  the daemon throws as it loads (app/daemon.js): the unit's start fails at once
 *   --break hang  the daemon never gets to READY=1 (nor to a /state)
 * safe-state (app/safe-state.js, the unit's ExecStartPre/ExecStopPost) is left intact in both.
 * Each release's unit gets a comment line naming it, so that a test can tell whose unit systemd
 * has (the unit must come with the switch to its release, never before).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [input, outDir, version, flag, how] = process.argv.slice(2);
if (!input || !outDir || !version || (flag !== undefined && (flag !== '--break' || !['exit', 'hang'].includes(how ?? '')))) {
  console.error('usage: restamp.mjs IN.tar.gz OUT_DIR VERSION [--break exit|hang]');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'restamp-'));
try {
  execFileSync('tar', ['-xzf', input, '-C', work]);
  const [top] = readdirSync(work);
  const newTop = `pickup-station-${version}`;
  renameSync(join(work, top), join(work, newTop));
  const dir = join(work, newTop);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const changed = ['package.json', 'systemd/pickup-station.service'];
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  const unit = join(dir, 'systemd/pickup-station.service');
  writeFileSync(unit, `${readFileSync(unit, 'utf8')}# the unit of test release ${version}\n`);
  if (how !== undefined) {
    const daemon = join(dir, 'app/daemon.js');
    const poison =
      how === 'exit'
        ? `throw new Error('pickup-station ${version}: deliberately broken release (exits at start)');\n`
        : `await new Promise(() => setInterval(() => {}, 1 << 30)); // ${version}: deliberately broken (never ready)\n`;
    writeFileSync(daemon, poison + readFileSync(daemon, 'utf8'));
    changed.push('app/daemon.js');
  }
  // The release's own identity in its vendor file and SBOM follows the version (the package built
  // from it checks both).
  for (const f of ['vendor.json', 'sbom.cdx.json']) {
    const file = join(dir, f);
    if (!existsSync(file)) continue;
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    if (f === 'vendor.json') doc.version = version;
    else {
      const old = doc.metadata.component.version;
      doc.metadata.component.version = version;
      doc.metadata.component.purl = doc.metadata.component.purl.replace(`@${old}?`, `@${version}?`);
      for (const p of doc.metadata.component.properties ?? []) p.value = p.value.replaceAll(old, version);
    }
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    changed.push(f);
  }
  manifest.checksums ??= {};
  for (const f of changed) {
    const bytes = readFileSync(join(dir, f));
    manifest.checksums[f] = createHash('sha256').update(bytes).digest('hex');
    if (manifest.sizes) manifest.sizes[f] = bytes.length;
  }
  manifest.version = version;
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const out = join(outDir, `${newTop}-linux-${manifest.arch}.tar.gz`);
  execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-czf', out, '-C', work, newTop]);
  console.log(out);
} finally {
  rmSync(work, { recursive: true, force: true });
}
