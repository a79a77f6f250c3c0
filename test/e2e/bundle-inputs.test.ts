/**
 * A release build without the vendor's inputs, or with inputs that mean nothing, is refused before
 * anything is built, naming the flag: scripts/bundle/build.sh (and scripts/bundle/verify-emulated.sh,
 * which runs it) as a release is built. The support period is judged against the build's own date
 * (SOURCE_DATE_EPOCH): at least five years (record 0150), shorter only with a reason, never already
 * over. The .deb's refusals are in packaging-deb.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TEST_SECURITY_CONTACT, TEST_SECURITY_POLICY, TEST_SUPPORT_UNTIL } from '../support/release-vendor.js';

const REPO = join(import.meta.dirname, '../..');
/** 2025-12-05 00:00:00 UTC: the build's date in these cases. */
const BUILT = '1764892800';
const build = (...args: string[]) =>
  spawnSync('bash', [join(REPO, 'scripts/bundle/build.sh'), '--arch', 'arm64', ...args], {
    encoding: 'utf8',
    env: { ...process.env, SOURCE_DATE_EPOCH: BUILT },
  });
const contact = ['--security-contact', TEST_SECURITY_CONTACT] as const;
const policy = ['--security-policy', TEST_SECURITY_POLICY] as const;

it('refuses a bundle without an input, or with one malformed, naming it', () => {
  const cases: [string[], string][] = [
    [[...policy, '--support-until', TEST_SUPPORT_UNTIL], '--security-contact is required'],
    [[...contact, '--support-until', TEST_SUPPORT_UNTIL], '--security-policy is required'],
    [[...contact, ...policy], '--support-until is required'],
    [['--security-contact', 'security@vendor.test.invalid', ...policy, '--support-until', TEST_SUPPORT_UNTIL], 'is not a mailto:, https: or tel: URI'],
    [[...contact, '--security-policy', 'file:///opt/pickup-station/current/SECURITY.md', '--support-until', TEST_SUPPORT_UNTIL], 'is not an https:// URL'],
    [[...contact, '--security-policy', 'http://vendor.test.invalid/policy', '--support-until', TEST_SUPPORT_UNTIL], 'is not an https:// URL'],
    [[...contact, ...policy, '--support-until', '31.12.2099'], '--support-until "31.12.2099" is not a date YYYY-MM-DD'],
    [[...contact, ...policy, '--support-until', TEST_SUPPORT_UNTIL, '--support-until-reason', 'short'], '--support-until-reason is one line of 10 to 200'],
    [[...contact, ...policy, '--support-until'], '--support-until needs a value'],
  ];
  for (const [args, message] of cases) {
    const r = build(...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.stderr).toContain(message);
    // Refused before the first step of a build (which logs "[   0s] ...").
    expect(r.stderr).not.toMatch(/^\[ *\d+s\]/m);
  }
});

it('takes a support period of at least five years after the build; a shorter one only with a reason; never one already over', () => {
  const refused: [string[], string][] = [
    [['--support-until', '2025-12-04'], "--support-until 2025-12-04 is before the build's date 2025-12-05"],
    [['--support-until', '2025-12-04', '--support-until-reason', 'patch release of a line that has ended'], "is before the build's date 2025-12-05"],
    [
      ['--support-until', '2030-12-04'],
      "--support-until 2030-12-04 is shorter than the minimum support period (5 years after the build's date 2025-12-05: 2030-12-05 or later); give --support-until-reason TEXT",
    ],
  ];
  for (const [args, message] of refused) {
    const r = build(...contact, ...policy, ...args);
    expect(r.status, args.join(' ')).toBe(2);
    expect(r.stderr).toContain(message);
  }
  // Taken: the build goes on to its next check (an architecture that does not exist stops it there).
  const taken = [
    ['--support-until', '2030-12-05'],
    ['--support-until', '2027-06-30', '--support-until-reason', 'patch release of the 0.2 line, whose support period 0.2.0 set'],
    ['--support-until', '2025-12-05', '--support-until-reason', 'the last fix of a line that ends today'],
  ];
  for (const args of taken) {
    const r = build(...contact, ...policy, ...args, '--arch', 'sparc');
    expect(r.stderr, args.join(' ')).toContain("unknown --arch 'sparc'");
    expect(r.status).toBe(1);
  }
});
