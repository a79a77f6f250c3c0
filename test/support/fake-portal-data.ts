/** Fixture data and response bodies of the fake portal (see fake-portal.ts). */
import * as z from 'zod';

export const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

export interface FakeSubfield {
  id: string;
  code: string;
  value: unknown;
}
export interface FakeField {
  id: string;
  code: string;
  subfields: FakeSubfield[];
}
export interface FakeEditation {
  id: string;
  recordId: string;
  kind: 'document' | 'authority';
  fond: number;
  query: Record<string, string>;
  fields: FakeField[];
  published: boolean;
}
export interface FakeRecord {
  id: string;
  kind: 'document' | 'authority';
  fond: number;
  fields: FakeField[];
  phase?: string;
  quickSets: { fieldId: string; subfieldId: string; value: unknown; form: 'template' | 'example' }[];
}

export interface FakeSearchItem {
  readonly [key: string]: unknown;
  readonly id: string;
  readonly name: string;
}

export interface ExternalUser {
  id: number;
  firstName: string;
  lastName: string;
  cardNumber: string;
}

/** Document search item n (ids are stable: ...-8000-00000000000n). */
export const doc = (n: number, name: string, extra: Record<string, unknown> = {}): FakeSearchItem => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  kindedId: 1000 + n,
  name,
  text: name,
  subTitle: '',
  type: 'document',
  author: n % 2 === 0 ? 'Čapek, Karel' : null,
  isbn: n % 3 === 0 ? `978-80-000-000${n % 10}` : null,
  publisher: null,
  publicationYear: 1900 + n,
  fond: { id: n % 2 === 0 ? 1 : 53, name: 'Books', text: 'Books' },
  status: { id: 4, text: 'Cataloguing finished' },
  lastUpdateDate: '2024-03-01T10:00:00+01:00',
  cover: null,
  directoryId: 7,
  exemplarable: true,
  withForeignOccurrences: false,
  volumeable: false,
  periodical: false,
  rating: null,
  // Not in the spec: the client must ignore it.
  unknownExtra: { nested: true },
  ...extra,
});

export function editationBody(ed: FakeEditation): unknown {
  return {
    id: ed.id,
    text: 'New record',
    recordId: ed.recordId,
    directoryId: 1,
    type: ed.kind,
    draft: !ed.published,
    revisionSaved: ed.published,
    fond: { id: ed.fond, text: `Fond ${ed.fond}` },
    fields: ed.fields.map((f, rep) => ({
      id: f.id,
      fieldRepetition: rep,
      ind1: ' ',
      ind2: ' ',
      empty: f.subfields.every((s) => s.value === null),
      marcId: `${f.code}#0`,
      text: '',
      code: f.code,
      typeId: `D.${f.code}`,
      fieldTypeText: 'Title',
      fields: f.subfields.map((s) => ({
        id: s.id,
        value: null,
        empty: s.value === null,
        marcId: `${f.code}#0.${s.code}#0`,
        text: '',
        url: false,
        ofRecord: false,
        raw: null,
        recordId: null,
        typeId: `D.${f.code}.${s.code}`,
        code: s.code,
        fieldTypeText: 'Main title',
        somethingNew: 1,
      })),
    })),
    editorsOnline: [],
  };
}

/** A user editation request object as /api/sync/user/fetch returns it. */
export function fetchedUser(u: ExternalUser, identifier: string): unknown {
  return {
    id: u.id,
    active: true,
    readerAccounts: [
      {
        readerCategory: { id: 'ADULT', text: 'Adult' },
        cardNumber: u.cardNumber,
        registrationDate: '2024-01-01T00:00:00+01:00',
        registrationExpirationDate: '2025-01-01T00:00:00+01:00',
      },
    ],
    editorAccounts: null,
    emails: [{ value: 'jan.novak@example.org', source: { id: 'EXTERNAL', text: 'External' } }],
    phoneNumbers: [{ value: '+420 123 456 789', smsCapable: true, source: { id: 'EXTERNAL', text: 'External' } }],
    addresses: [{ permanent: true, mailing: true, street: 'Main 1', city: 'Brno', state: 'CZ', postalCode: '60200' }],
    username: null,
    readableDepartments: null,
    firstName: u.firstName,
    lastName: u.lastName,
    prefixDegree: null,
    suffixDegree: null,
    birthDate: '1990-05-01T00:00:00+02:00',
    guId: null,
    netId: identifier,
    openidId: null,
    bakalariId: null,
    edookitId: null,
    edupageId: null,
    jobName: null,
    jobAddress: null,
    educationLevel: null,
    schoolClass: null,
    identityCardNumber: null,
    kind: 'PERSON',
  };
}

/** Value shapes for standard and simple-authority subfields. */
export const valueBody = z.strictObject({ value: z.union([z.string(), z.strictObject({ id: uuid }), z.strictObject({ fieldLabel: z.string() })]) });
/** Value shapes for a complex authority (`main`) subfield. */
export const mainValueBody = z.strictObject({
  value: z.union([z.strictObject({ id: uuid }), z.strictObject({ fieldLabels: z.record(z.string().regex(/^D\.[0-9]{3}\.[a-z0-9]$/), z.string()) })]),
});
