/**
 * The technician page's script is a checked asset (src/technician/page/technician.js): its type
 * check reads the server's own types of what the page reads — the status body (StatusBody,
 * src/technician/status.ts) and the live stream's events (StreamEvent, src/supervisor/observe.ts).
 * It passes as the files are, and fails when the script reads a field the status does not have or
 * handles a stream event the observer does not send.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageDiagnostics } from '../support/page-types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSCONFIG = 'src/technician/page/tsconfig.json';
const SCRIPT = 'src/technician/page/technician.js';
const text = readFileSync(join(ROOT, SCRIPT), 'utf8');

describe("the technician page's script against the server's types", { timeout: 300_000 }, () => {
  it('passes as it is', () => {
    expect(pageDiagnostics(TSCONFIG, SCRIPT)).toEqual([]);
  });

  it('fails on a status field the server does not send, and on a stream event it does not know', () => {
    const unknownField = text.replace("$('station-id').textContent = s.stationId;", "$('station-id').textContent = s.stationName;");
    expect(unknownField).not.toBe(text);
    expect(pageDiagnostics(TSCONFIG, SCRIPT, unknownField).join('\n')).toMatch(/stationName/);
    const unknownEvent = text.replace("    case 'rfid-security-failed':\n", "    case 'rfid-security-failed':\n    case 'door-forced':\n");
    expect(unknownEvent).not.toBe(text);
    expect(pageDiagnostics(TSCONFIG, SCRIPT, unknownEvent).join('\n')).toMatch(/door-forced/);
  });
});
