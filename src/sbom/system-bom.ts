/**
 * The SBOM of a station as it runs (`stationctl sbom --system`): the release's own SBOM (every npm
 * package and the Node it ships) and every Debian package installed on the board, each with its
 * exact version, architecture, purl (`pkg:deb/<os id>/<name>@<version>?arch=…&distro=<codename>`),
 * source package and the licences it states; the kernel that runs; the kiosk's packages marked as
 * such. CycloneDX 1.5 JSON. Pure: collect.ts reads the board.
 */
import { type DebPackage, type Licence, debRef, dependencyGraph } from './debian.js';

export interface OsRelease {
  /** ID= of /etc/os-release (debian, raspbian, ...): the purl's namespace. */
  readonly id: string;
  /** VERSION_ID= (12), VERSION_CODENAME= (bookworm), PRETTY_NAME=. */
  readonly versionId: string;
  readonly codename: string;
  readonly prettyName: string;
}

export interface SystemInput {
  /** The running release's sbom.cdx.json (scripts/release/sbom.mjs), parsed. */
  readonly release: ReleaseBom;
  readonly packages: readonly DebPackage[];
  /** Licences by package name, as its copyright file states them; absent: none a machine can read. */
  readonly licences: ReadonlyMap<string, readonly Licence[]>;
  readonly os: OsRelease;
  /** `uname -r`: the kernel that runs (an installed newer one waits for a reboot). */
  readonly kernel: string;
  /** The kiosk's packages (the release's systemd/kiosk-packages): marked where installed. */
  readonly kioskPackages: readonly string[];
  /** ISO time of the snapshot, and its serial number (a UUID). */
  readonly timestamp: string;
  readonly serial: string;
}

type Json = Record<string, unknown>;
interface Component extends Json {
  readonly 'bom-ref': string;
}
export interface ReleaseBom {
  readonly metadata: { readonly component: Component & { readonly name: string; readonly version: string } };
  readonly components?: readonly Component[];
  readonly dependencies?: readonly { readonly ref: string; readonly dependsOn?: readonly string[] }[];
  readonly formulation?: readonly Json[];
}

const STATION_REF = 'station';
const OS_REF = 'os';

/** A purl's path segment or version, percent-encoded where the purl spec wants it. */
const enc = (s: string) => encodeURIComponent(s);

function debComponent(p: DebPackage, input: SystemInput, roles: readonly string[]): Component {
  const licences = input.licences.get(p.name);
  const properties: { name: string; value: string }[] = [{ name: 'pickup-station:debian-source', value: `${p.source} ${p.sourceVersion}` }];
  if (p.state !== null) properties.push({ name: 'pickup-station:dpkg-state', value: p.state });
  for (const role of roles) properties.push({ name: 'pickup-station:role', value: role });
  return {
    type: 'library',
    'bom-ref': debRef(p),
    name: p.name,
    version: p.version,
    ...(licences !== undefined && licences.length > 0 ? { licenses: licences } : {}),
    purl: `pkg:deb/${enc(input.os.id)}/${enc(p.name)}@${enc(p.version)}?arch=${enc(p.architecture)}&distro=${enc(input.os.codename)}`,
    properties,
  };
}

/** The station's SBOM: the release and the board's Debian packages, in one CycloneDX 1.5 document. */
export function systemBom(input: SystemInput): Json {
  const release = input.release;
  const releaseRoot = release.metadata.component;
  const installed = new Map(input.packages.map((p) => [p.name, p]));
  // The release's Debian dependencies (declared, unversioned) become the installed packages.
  const declared = (release.components ?? []).filter((c) => String(c['bom-ref']).startsWith('deb:'));
  const runtime = new Set(declared.map((c) => String(c['name'])));
  const mapRef = (ref: string): string | null => {
    if (!ref.startsWith('deb:')) return ref;
    const p = installed.get(ref.slice('deb:'.length));
    return p === undefined ? null : debRef(p);
  };
  const kiosk = new Set(input.kioskPackages);
  const debs = input.packages.map((p) => {
    const roles = [...(runtime.has(p.name) ? ['release-dependency'] : []), ...(kiosk.has(p.name) ? ['kiosk'] : [])];
    return debComponent(p, input, roles);
  });
  const missing = [...runtime].filter((name) => !installed.has(name)).sort();
  const releaseComponents = (release.components ?? []).filter((c) => !String(c['bom-ref']).startsWith('deb:'));
  const graph = dependencyGraph(input.packages);
  const os: Component = {
    type: 'operating-system',
    'bom-ref': OS_REF,
    name: input.os.id,
    version: input.os.versionId,
    description: input.os.prettyName,
    properties: [
      { name: 'pickup-station:codename', value: input.os.codename },
      { name: 'pickup-station:running-kernel', value: input.kernel },
    ],
  };
  const kioskInstalled = input.kioskPackages.filter((name) => installed.has(name));
  const station: Component = {
    type: 'device',
    'bom-ref': STATION_REF,
    name: 'pickup-station board',
    version: releaseRoot.version,
    description: `a pickup station running ${releaseRoot.name} ${releaseRoot.version} on ${input.os.prettyName}`,
    properties: [
      { name: 'pickup-station:release', value: `${releaseRoot.name} ${releaseRoot.version}` },
      { name: 'pickup-station:debian-packages', value: String(input.packages.length) },
      { name: 'pickup-station:kiosk', value: kioskInstalled.length > 0 ? `installed: ${kioskInstalled.join(' ')}` : 'not installed' },
      ...(missing.length > 0 ? [{ name: 'pickup-station:release-dependencies-missing', value: missing.join(' ') }] : []),
    ],
  };
  const dependencies = [
    { ref: STATION_REF, dependsOn: [String(releaseRoot['bom-ref']), OS_REF] },
    ...(release.dependencies ?? [])
      .map((d) => ({
        ref: d.ref,
        dependsOn: [...new Set((d.dependsOn ?? []).map(mapRef).filter((r): r is string => r !== null))].sort(),
      }))
      .filter((d) => !d.ref.startsWith('deb:')),
    { ref: OS_REF, dependsOn: debs.map((d) => d['bom-ref']) },
    ...debs.map((d) => ({ ref: d['bom-ref'], dependsOn: graph.get(d['bom-ref']) ?? [] })),
  ];
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.5.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: `urn:uuid:${input.serial}`,
    version: 1,
    metadata: {
      timestamp: input.timestamp,
      lifecycles: [{ phase: 'operations' }],
      tools: { components: [{ type: 'application', name: 'pickup-station stationctl sbom --system', version: releaseRoot.version }] },
      component: station,
      supplier: { name: 'Pickup Station Maintainers' },
    },
    components: [releaseRoot, ...releaseComponents, os, ...debs],
    dependencies,
    ...(release.formulation !== undefined ? { formulation: release.formulation } : {}),
  };
}
