/**
 * Certificates made by openssl for the TLS tests: a private CA and leaf certificates signed by it
 * (for a host name, not yet valid, ...), and a second CA that the station does not trust. Nothing
 * is checked in: every run makes its own keys in a temp folder.
 *
 * Leaves are signed with `openssl ca`, the only openssl 3.0 command that sets an arbitrary start
 * date (a certificate "not yet valid" is what a board without a real-time clock sees after a boot
 * in 1970 or 2000).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireTool } from './tools.js';

export const HAVE_OPENSSL = requireTool('openssl', spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0, 'openssl');

export interface Ca {
  readonly dir: string;
  readonly name: string;
  /** PEM file of the CA certificate (what `server.caFile` names). */
  readonly certFile: string;
  readonly keyFile: string;
}

export interface Leaf {
  readonly key: string;
  readonly cert: string;
  readonly certFile: string;
}

function openssl(args: readonly string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
}

/** A self-signed CA (EC P-256: key generation is instant) in `parent/name/`. */
export function makeCa(parent: string, name: string): Ca {
  const dir = join(parent, name);
  mkdirSync(join(dir, 'issued'), { recursive: true });
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = this',
      '[this]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'serial = $dir/serial',
      'new_certs_dir = $dir/issued',
      'certificate = $dir/ca.pem',
      'private_key = $dir/ca.key',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      'copy_extensions = none',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3650',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:true',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return { dir, name, certFile: join(dir, 'ca.pem'), keyFile: join(dir, 'ca.key') };
}

export interface LeafOptions {
  /** Subject alternative names, e.g. ["DNS:localhost", "IP:127.0.0.1"]. */
  readonly altNames: readonly string[];
  /** Validity start (default: yesterday) and end (default: in a year). */
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

/** openssl's YYYYMMDDHHMMSSZ. */
function asn1Time(d: Date): string {
  return `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

/** A server certificate signed by `ca`, with its key, in the CA's folder. */
export function makeLeaf(ca: Ca, name: string, opts: LeafOptions): Leaf {
  const day = 24 * 3600_000;
  const notBefore = opts.notBefore ?? new Date(Date.now() - day);
  const notAfter = opts.notAfter ?? new Date(notBefore.getTime() + 365 * day);
  const ext = join(ca.dir, `${name}.ext`);
  writeFileSync(ext, `subjectAltName = ${opts.altNames.join(',')}\nbasicConstraints = CA:false\nextendedKeyUsage = serverAuth\n`);
  openssl(
    ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`],
    ca.dir,
  );
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-notext',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.pem`,
      '-extfile',
      ext,
      '-startdate',
      asn1Time(notBefore),
      '-enddate',
      asn1Time(notAfter),
    ],
    ca.dir,
  );
  const certFile = join(ca.dir, `${name}.pem`);
  return { key: readFileSync(join(ca.dir, `${name}.key`), 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
