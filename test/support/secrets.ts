/**
 * The secrets check: nothing a station writes or shows may hold the station password, an HTTP
 * Basic credential, a technician (bearer) token, a reader's PIN, or a patron's identifier in full
 * (an item number, a card or tag UID, a barcode, a patron's name: masked as maskIdentifier does,
 * "***017 (14)", they may appear). Run over every log line, the files under storage.directory (the
 * journal), the technician status and the live streams of a flow: the fault matrix, the restart
 * test, the soak, the privacy test.
 *
 * Besides the known values it looks for their shapes, so a secret that the test did not know about
 * (another station's password, a token in a header dump) is caught as well:
 * - `Basic <base64>` other than the redacted `Basic ***`;
 * - `Bearer <token>`;
 * - a JSON field named pin / password / token / authorization / clientSecret with a value that is
 *   not the redaction marker.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface KnownSecrets {
  readonly stationId: string;
  readonly password: string;
  /** Technician tokens handed out in the flow. */
  readonly tokens?: readonly string[];
  /** Every PIN typed in the flow (6 digits each). */
  readonly pins?: readonly string[];
  /**
   * Every patron identifier of the flow: item numbers and barcodes scanned, card UIDs, names the
   * portal answered. Looked for as they are, anywhere (a test plants distinctive ones).
   */
  readonly identifiers?: readonly string[];
}

export interface Leak {
  /** Where the text came from ("log", "status", a file path, ...). */
  readonly source: string;
  /** Which secret or shape matched. */
  readonly what: string;
  /** A few characters around the match, with the secret itself masked. */
  readonly context: string;
}

const REDACTED = /^(\[redacted\]|\*+|Basic \*+)$/;
const SECRET_FIELD = /"(pin|password|token|accessToken|authorization|clientSecret|secret)"\s*:\s*"([^"]*)"/gi;
/** maskIdentifier's shapes: "*** (5)", "***017 (14)". */
const MASKED = /^\*\*\*(\S{0,3})? \(\d+\)$/;
const IDENTIFIER_FIELD = /"(identifierValue|itemId|uid|barcode|cardUid|patron|patronName|firstName|lastName)"\s*:\s*"([^"]*)"/g;

function around(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 40);
  return `${text.slice(start, index)}<${length} chars>${text.slice(index + length, index + length + 40)}`.replace(/\s+/g, ' ');
}

/** Every leak in `text`; [] when clean. */
export function findLeaks(source: string, text: string, known: KnownSecrets): Leak[] {
  const leaks: Leak[] = [];
  const literal = (what: string, value: string): void => {
    if (value.length === 0) return;
    let i = text.indexOf(value);
    while (i >= 0) {
      leaks.push({ source, what, context: around(text, i, value.length) });
      i = text.indexOf(value, i + value.length);
    }
  };
  const basic = Buffer.from(`${known.stationId}:${known.password}`).toString('base64');
  literal('station password', known.password);
  literal('Basic credential of the station', basic);
  for (const t of known.tokens ?? []) literal('technician token', t);
  for (const id of known.identifiers ?? []) literal('patron identifier', id);
  // A PIN as a token of its own: inside a longer run of letters or digits (a UUID, a trace id, a
  // timestamp) or as either part of a decimal number (a monotonic time's six-digit fraction, as
  // 40750.123456) six digits are noise, not a PIN; in a long log they would match by chance.
  for (const p of known.pins ?? []) {
    for (const m of text.matchAll(new RegExp(`(?<![0-9A-Za-z])(?<![0-9]\\.)${p}(?![0-9A-Za-z])(?!\\.[0-9])`, 'g')))
      leaks.push({ source, what: 'PIN', context: around(text, m.index, p.length) });
  }
  for (const m of text.matchAll(/Basic\s+([A-Za-z0-9+/]{8,}={0,2})/g))
    leaks.push({ source, what: 'a Basic credential', context: around(text, m.index, m[0].length) });
  for (const m of text.matchAll(/Bearer\s+([A-Za-z0-9._~+/-]{12,}=*)/g))
    leaks.push({ source, what: 'a bearer token', context: around(text, m.index, m[0].length) });
  for (const m of text.matchAll(SECRET_FIELD)) {
    const value = m[2] ?? '';
    if (value !== '' && !REDACTED.test(value)) leaks.push({ source, what: `a "${m[1]}" field with a value`, context: around(text, m.index, m[0].length) });
  }
  for (const m of text.matchAll(IDENTIFIER_FIELD)) {
    const value = m[2] ?? '';
    if (value !== '' && !MASKED.test(value))
      leaks.push({ source, what: `an identifier field "${m[1]}" not masked`, context: around(text, m.index, m[0].length) });
  }
  return leaks;
}

/** Every regular file under `dir` (recursively), as [path, text]; none when the folder is absent. */
export function filesUnder(dir: string | null): [string, string][] {
  if (dir === null || !existsSync(dir)) return [];
  const out: [string, string][] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push([path, readFileSync(path).toString('latin1')]);
  }
  return out;
}

/** Leaks across several sources at once. */
export function findLeaksIn(sources: Readonly<Record<string, string>>, known: KnownSecrets): Leak[] {
  return Object.entries(sources).flatMap(([source, text]) => findLeaks(source, text, known));
}
