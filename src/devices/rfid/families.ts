/**
 * The reader families the station speaks, by the profile's `family` value. A new family is a file
 * implementing ReaderFamily (family.ts) and one line here; schema.ts lists the same ids.
 */
import type { ReaderFamily } from './family.js';
import { feigIsoHost } from './feig/session.js';

export const READER_FAMILIES = {
  'feig-iso-host': feigIsoHost,
} as const satisfies Readonly<Record<string, ReaderFamily>>;

export type ReaderFamilyId = keyof typeof READER_FAMILIES;
