/**
 * The kiosk page's script takes the shape of its state from the server's own type
 * (src/devices/kiosk/state.ts, which server.ts sends): the page's type check passes as the files
 * are, and fails when the script reads a field the server does not send, or uses one as another type.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageDiagnostics } from '../support/page-types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSCONFIG = 'src/devices/kiosk/page/tsconfig.json';
const SCRIPT = 'src/devices/kiosk/page/kiosk.js';
const text = readFileSync(join(ROOT, SCRIPT), 'utf8');

describe("the kiosk page's script against the server's KioskState", { timeout: 300_000 }, () => {
  it('passes as it is, and its typedef is the server type', () => {
    expect(pageDiagnostics(TSCONFIG, SCRIPT)).toEqual([]);
    expect(text).toContain("@typedef {import('../state.js').KioskState} KioskState");
  });

  it('fails on a field the server does not send, and on a field of another type', () => {
    const unknownField = `${text}\n/** @param {KioskState} s */\nexport function planted(s) { return s.secondsLeft; }\n`;
    expect(pageDiagnostics(TSCONFIG, SCRIPT, unknownField).join('\n')).toMatch(/secondsLeft/);
    const wrongType = `${text}\n/** @param {KioskState} s */\nexport function planted(s) { return s.session.toUpperCase(); }\n`;
    expect(pageDiagnostics(TSCONFIG, SCRIPT, wrongType).join('\n')).toMatch(/toUpperCase/);
  });
});
