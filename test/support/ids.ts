/** The ids the tests' stations use: one station UUID and box UUIDs numbered by box. */

/** A valid lowercase UUIDv4 station id. */
export const TEST_STATION_ID = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

/** The UUIDv4 of box `n` (bbbbbbbb-…-00000000000n). */
export const testBoxId = (n: number): string => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
