/**
 * Patrons' identifiers made unreadable (item numbers, barcodes, card and tag UIDs, PINs, names):
 * one pure module — no I/O, no clock, no package — so that the pure core masks what it logs with
 * the same function the logger, the journal and the status use (docs/privacy.md, record 0160).
 *
 * Three tools, each a line of defence of its own:
 * - `maskIdentifier`: the one masked form of a known identifier, `***017 (14)`;
 * - `maskText`: identifiers found in free text by their shape (a message, an error, a server's
 *   or the portal's answer), where no field name says what a value is;
 * - `maskFields`: a whole log object, walked to any depth: a field named as an identifier is
 *   masked whatever it holds, every other string is masked by shape, an Error becomes its masked
 *   name, message, code and stack.
 */

/**
 * Field names that hold a patron's or an item's identifier. Their values are masked, never dropped:
 * the last three characters and the length still let a technician match a log line to the item in
 * front of them.
 */
export const IDENTIFIER_KEYS = ['identifierValue', 'itemId', 'uid', 'uids', 'barcode', 'cardUid', 'patron', 'patronName', 'firstName', 'lastName'] as const;

const IDENTIFIER_KEY_SET: ReadonlySet<string> = new Set(IDENTIFIER_KEYS);

/** What maskIdentifier returns: at most three characters of the value, and its length. */
const MASKED = /^\*\*\*\S{0,3} \(\d+\)$/;

/**
 * A short masked preview of an identifier for a log line, the journal or the status: its last three
 * characters and its length ("***017 (14)"); nothing at all for short values. Never called for a PIN
 * (a PIN is not shown even masked). A value already masked stays as it is.
 */
export function maskIdentifier(value: string): string {
  if (MASKED.test(value)) return value;
  return value.length <= 6 ? `*** (${value.length})` : `***${value.slice(-3)} (${value.length})`;
}

/**
 * The shortest identifier the station handles: a pickup PIN has six digits (the protocol's
 * PIN_LENGTH), and every barcode, card number and item number is at least as long.
 */
const MIN_IDENTIFIER_DIGITS = 6;
/** Letters an identifier made mostly of digits may carry (a Codabar's start and stop letters, a prefix). */
const MAX_LETTERS_BESIDE_DIGITS = 3;
/**
 * Lengths of a UID written as hex: ISO/IEC 14443 cards (4, 7 or 10 bytes: a patron's MIFARE card)
 * and ISO/IEC 15693 library tags (8 bytes).
 */
const UID_HEX_LENGTHS: ReadonlySet<number> = new Set([8, 14, 16, 20]);

/** The station's own ids (station, boxes, events): UUIDs are never a patron's and stay readable. */
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
/**
 * In free text: a backslash escape (JSON's `\t`, `\u00e1`: kept, and not taken as part of the word
 * after it), a UUID (kept whole), a UID as hex bytes with separators (`E0:04:01:50:…`, a frame dump
 * `e0 04 01 …`), or a run of letters and digits (judged by isIdentifierToken).
 */
const TEXT_TOKEN =
  /\\(?:u[0-9A-Fa-f]{4}|[^u])|[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}|(?<!(?<!\\)[0-9A-Za-z])[0-9A-Fa-f]{2}(?:[: -][0-9A-Fa-f]{2}){3,}(?![0-9A-Za-z])|[0-9A-Za-z]+/g;
/** A figure with its unit or bound ("120000 ms", "<=600000", "262144 bytes"): a quantity, not an identifier. */
const UNIT_AFTER = /^ ?(?:ms|s|bytes?|B|KiB|MiB|%)(?![0-9A-Za-z])/;
/** A bound as a schema writes it: a comparison standing alone ("be <=600000", "> 1000"), not a tag's ">". */
const BOUND_BEFORE = /(?:^|\s)[<>]=? ?$/;

function isIdentifierToken(token: string): boolean {
  // A card's or a tag's UID in hex, whatever its digits (a UID may be letters A-F only).
  if (UID_HEX_LENGTHS.has(token.length) && /^[0-9A-Fa-f]+$/.test(token)) return true;
  let digits = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  // Barcodes, card numbers in decimal, numeric item numbers, PINs.
  return digits >= MIN_IDENTIFIER_DIGITS && token.length - digits <= MAX_LETTERS_BESIDE_DIGITS;
}

/**
 * `text` with every identifier-shaped part masked (maskIdentifier): a run of letters and digits
 * with at least six digits and at most three letters (a barcode, a card number, an item number, a
 * PIN), a hex UID of a card's or a tag's length (8, 14, 16 or 20 hex digits), or hex bytes with
 * separators. UUIDs (the station's own ids), figures with a unit or a bound ("120000 ms",
 * "<=600000") and text already masked stay as they are. A heuristic by design — it does not know
 * what a value is, so it masks what could be one — and the second line of defence: call sites
 * mask the identifiers they know.
 */
export function maskText(text: string): string {
  // Most log text has no digit, no run of eight hex letters and no hex bytes: nothing to look at.
  if (!/[0-9]|[A-Fa-f]{8}|[A-Fa-f]{2}[: -][A-Fa-f]{2}/.test(text)) return text;
  return text.replace(TEXT_TOKEN, (token: string, offset: number) => {
    if (token.startsWith('\\') || UUID.test(token)) return token;
    if (/[: -]/.test(token)) return maskIdentifier(token);
    if (!isIdentifierToken(token)) return token;
    if (/^[0-9]+$/.test(token)) {
      const rest = text.slice(offset + token.length);
      if (UNIT_AFTER.test(rest) || BOUND_BEFORE.test(text.slice(Math.max(0, offset - 4), offset))) return token;
    }
    // A masked preview is not masked again ("***017 (14)": its "017" and "14" are no identifier).
    return maskIdentifier(token);
  });
}

/** How deep maskFields walks; anything below is replaced (a log object is never that deep). */
const MAX_DEPTH = 12;

/** An identifier field's value, masked whatever it is. */
function maskIdentifierValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return maskIdentifier(String(value));
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (Array.isArray(value) && depth < MAX_DEPTH) return value.map((v: unknown) => maskIdentifierValue(v, depth + 1));
  return '[masked]';
}

/** An Error as a log line shows it: its name, code and masked message and stack (and cause). */
function maskError(e: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.name, message: maskText(e.message) };
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out['code'] = code;
  if (typeof e.stack === 'string') out['stack'] = maskText(e.stack);
  for (const [k, v] of Object.entries(e)) {
    if (k !== 'message' && k !== 'stack' && k !== 'name' && k !== 'code') out[k] = walk(k, v, depth + 1, seen);
  }
  if (e.cause !== undefined) out['cause'] = walk('cause', e.cause, depth + 1, seen);
  return out;
}

function walk(key: string, value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (IDENTIFIER_KEY_SET.has(key)) return maskIdentifierValue(value, depth);
  if (typeof value === 'string') return maskText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[masked: too deep or circular]';
  seen.add(value);
  try {
    if (value instanceof Error) return maskError(value, depth, seen);
    if (Array.isArray(value)) return value.map((v: unknown) => walk('', v, depth + 1, seen));
    if (value instanceof Date) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(k, v, depth + 1, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * A log object with every identifier masked, at any depth: identifier fields (IDENTIFIER_KEYS)
 * through maskIdentifier whatever they hold, every other string through maskText, Errors as their
 * masked name, code, message and stack. Numbers, booleans and null stay as they are. Returns a
 * new object; the one passed in is not changed.
 */
export function maskFields(obj: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = walk('', obj, 0, new WeakSet());
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : { value: out };
}
