/**
 * A release build without the vendor's inputs is refused before anything is built, naming the
 * flag: scripts/bundle/build.sh (and scripts/bundle/verify-emulated.sh, which runs it) as a release
 * is built. The .deb's refusals are in packaging-deb.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TEST_SECURITY_CONTACT, TEST_SUPPORT_UNTIL } from '../support/release-vendor.js';

const REPO = join(import.meta.dirname, '../..');
const build = (...args: string[]) => spawnSync('bash', [join(REPO, 'scripts/bundle/build.sh'), '--arch', 'arm64', ...args], { encoding: 'utf8' });

it('refuses a bundle without --security-contact or --support-until, or with one malformed, naming it', () => {
  const cases: [string[], string][] = [
    [['--support-until', TEST_SUPPORT_UNTIL], '--security-contact is required'],
    [['--security-contact', TEST_SECURITY_CONTACT], '--support-until is required'],
    [['--security-contact', 'security@vendor.test.invalid', '--support-until', TEST_SUPPORT_UNTIL], 'is not a mailto:, https: or tel: URI'],
    [['--security-contact', TEST_SECURITY_CONTACT, '--support-until', '31.12.2099'], '--support-until "31.12.2099" is not a date YYYY-MM-DD'],
  ];
  for (const [args, message] of cases) {
    const r = build(...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.stderr).toContain(message);
    // Refused before the first step of a build (which logs "[   0s] ...").
    expect(r.stderr).not.toMatch(/^\[ *\d+s\]/m);
  }
});
