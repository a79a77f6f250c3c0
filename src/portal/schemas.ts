/**
 * Response shapes of library-portal-api.md as zod schemas.
 *
 * - Objects strip unknown keys (z.object, never strict): the portal may add fields at will.
 * - Fields the spec lists are typed as listed; ids the spec calls UUIDs use z.guid() (any
 *   8-4-4-4-12 hex), because the portal's UUIDs need not carry RFC 9562 version bits.
 * - Fields that identify an item are required; descriptive fields are optional so that a
 *   missing label does not make a whole search page unusable.
 * - Timestamps stay strings (ISO 8601 with offset); the client never computes with them.
 * - Shapes the spec marks "not shown" are z.unknown() / loose records.
 */
import * as z from 'zod';

const uuid = z.guid();
const isoDateTime = z.string();
/** A shape the spec does not show: any JSON object, kept as is. */
const anyObject = z.record(z.string(), z.unknown());

// ---- OAuth2 token ------------------------------------------------------------------------------

export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'token_type must be "bearer"'),
  /** Seconds (RFC 6749 §5.1; the spec leaves the unit open). */
  expires_in: z.number().int().nonnegative(),
  /** Space-separated scope names, e.g. "EVIDED EXTERNAL_SYSTEM" (optional in RFC 6749). */
  scope: z.string().optional(),
  jti: z.string().optional(),
});
export type TokenResponse = z.output<typeof tokenResponseSchema>;

// ---- Search ------------------------------------------------------------------------------------

export const SEARCH_KINDS = ['document', 'authority', 'exemplar', 'user'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const fondSchema = z.object({ id: z.number().int(), name: z.string().optional(), text: z.string().optional() });
const statusSchema = z.object({ id: z.number().int(), text: z.string().optional() });
const coverSchema = z.object({ id: z.number().int(), name: z.string().optional(), text: z.string().optional() });

export const documentItemSchema = z.object({
  id: uuid,
  kindedId: z.number().int(),
  name: z.string(),
  text: z.string().optional(),
  subTitle: z.string().optional(),
  type: z.literal('document'),
  author: z.string().nullable().optional(),
  isbn: z.string().nullable().optional(),
  publisher: z.string().nullable().optional(),
  /** 0 when unknown. */
  publicationYear: z.number().int().optional(),
  fond: fondSchema.optional(),
  /** Status ids seen: 0 undefined, 2 STUB, 3 CATALOGING, 4 CATALOGED. */
  status: statusSchema.optional(),
  lastUpdateDate: isoDateTime.optional(),
  cover: coverSchema.nullable().optional(),
  directoryId: z.number().int().optional(),
  exemplarable: z.boolean().optional(),
  withForeignOccurrences: z.boolean().optional(),
  volumeable: z.boolean().optional(),
  periodical: z.boolean().optional(),
  rating: z.unknown().optional(),
});
export type DocumentItem = z.output<typeof documentItemSchema>;

export const authorityItemSchema = z.object({
  id: uuid,
  kindedId: z.number().int(),
  name: z.string(),
  type: z.literal('authority'),
  text: z.string().optional(),
  fond: fondSchema.optional(),
  status: statusSchema.optional(),
  lastUpdateDate: isoDateTime.optional(),
  cover: coverSchema.nullable().optional(),
  directoryId: z.number().int().optional(),
});
export type AuthorityItem = z.output<typeof authorityItemSchema>;

/** Exemplar and user search items: their fields are not shown in the spec. */
export const unknownItemSchema = anyObject;
export type UnknownItem = z.output<typeof unknownItemSchema>;

export interface SearchItemByKind {
  document: DocumentItem;
  authority: AuthorityItem;
  exemplar: UnknownItem;
  user: UnknownItem;
}

export const itemSchemaByKind = {
  document: documentItemSchema,
  authority: authorityItemSchema,
  exemplar: unknownItemSchema,
  user: unknownItemSchema,
} as const satisfies { [K in SearchKind]: z.ZodType<SearchItemByKind[K]> };

/** The search envelope with the item schema of one kind. */
export function searchEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    title: z.string().optional(),
    subtitle: z.string().nullable().optional(),
    type: z.string().optional(),
    id: z.string().optional(),
    result: z.object({
      totalElements: z.number().int().nonnegative(),
      duration: z.number().int().optional(),
      content: z.array(item),
      numberOfElements: z.number().int().nonnegative(),
      totalPages: z.number().int().nonnegative(),
      /** First page is 1. */
      pageNumber: z.number().int(),
      pageSize: z.number().int(),
    }),
  });
}

export interface SearchPage<T> {
  readonly title?: string | undefined;
  readonly subtitle?: string | null | undefined;
  readonly type?: string | undefined;
  readonly id?: string | undefined;
  readonly result: {
    readonly totalElements: number;
    readonly duration?: number | undefined;
    readonly content: T[];
    readonly numberOfElements: number;
    readonly totalPages: number;
    readonly pageNumber: number;
    readonly pageSize: number;
  };
}

// ---- Newest documents --------------------------------------------------------------------------

export const newestDocumentSchema = z.object({
  id: uuid,
  kindedId: z.number().int(),
  name: z.string(),
  type: z.literal('document'),
  text: z.string().optional(),
  fond: z.object({ id: z.number().int(), name: z.string().optional() }).optional(),
  author: z.string().nullable().optional(),
  /** Unlike search results, an object here. */
  isbn: z.object({ value: z.string(), trimmedValue: z.string() }).nullable().optional(),
  publisher: z.string().nullable().optional(),
  publicationYear: z.number().int().optional(),
  cover: z.object({ id: z.number().int() }).nullable().optional(),
  /** Element shape not shown in the spec. */
  fields: z.array(z.unknown()).optional(),
});
export type NewestDocument = z.output<typeof newestDocumentSchema>;
export const newestDocumentsSchema = z.array(newestDocumentSchema);

// ---- Record editation --------------------------------------------------------------------------

export const editationSubfieldSchema = z.object({
  id: uuid,
  /** Subfield code, e.g. "a"; "main" is the virtual composite code of a complex authority. */
  code: z.string(),
  value: z.unknown().optional(),
  empty: z.boolean().optional(),
  /** "<code>#<rep>.<subcode>#<rep>" */
  marcId: z.string().optional(),
  text: z.string().optional(),
  url: z.boolean().optional(),
  /** True when the value references another record. */
  ofRecord: z.boolean().optional(),
  raw: z.unknown().optional(),
  recordId: uuid.nullable().optional(),
  /** "D.<code>.<subcode>" */
  typeId: z.string().optional(),
  fieldTypeText: z.string().optional(),
});
export type EditationSubfield = z.output<typeof editationSubfieldSchema>;

export const editationFieldSchema = z.object({
  id: uuid,
  /** Field type code, e.g. "245". */
  code: z.string(),
  fieldRepetition: z.number().int().nonnegative().optional(),
  ind1: z.string().optional(),
  ind2: z.string().optional(),
  empty: z.boolean().optional(),
  /** "<code>#<repetition>" */
  marcId: z.string().optional(),
  text: z.string().optional(),
  /** "D.<code>" */
  typeId: z.string().optional(),
  fieldTypeText: z.string().optional(),
  fields: z.array(editationSubfieldSchema).default([]),
});
export type EditationField = z.output<typeof editationFieldSchema>;

export const recordEditationSchema = z.object({
  /** Opaque editation id ({recordEditationId}). */
  id: z.string().min(1),
  /** The record being edited. */
  recordId: uuid,
  text: z.string().optional(),
  directoryId: z.number().int().optional(),
  type: z.enum(['document', 'authority']).optional(),
  draft: z.boolean().optional(),
  revisionSaved: z.boolean().optional(),
  fond: z.object({ id: z.number().int(), text: z.string().optional() }).optional(),
  fields: z.array(editationFieldSchema).default([]),
});
export type RecordEditation = z.output<typeof recordEditationSchema>;

// ---- Record holding ----------------------------------------------------------------------------

export const recordHoldingResponseSchema = z.object({ savedObject: z.object({ id: uuid }) });
export type RecordHoldingResponse = z.output<typeof recordHoldingResponseSchema>;

// ---- User sync ---------------------------------------------------------------------------------

export const SYNC_WAYS = ['CREATE', 'CREATE_DRAFT', 'UPDATE', 'DELETE', 'SKIP'] as const;
export const syncWaySchema = z.enum(SYNC_WAYS);
export type SyncWay = z.output<typeof syncWaySchema>;

const labeledIdentifiedSchema = z.object({ id: z.union([z.string(), z.number()]), text: z.string() });
const sourceSchema = z.object({ id: z.string(), text: z.string().optional() });
const nullableString = z.string().nullable().optional();

export const userEditationRequestSchema = z.object({
  // The spec types id as integer; a fetched user that was never saved may plausibly have none.
  id: z.number().int().nullable().optional(),
  active: z.boolean().optional(),
  readerAccounts: z
    .array(
      z.object({
        readerCategory: sourceSchema.optional(),
        cardNumber: z.string().nullable().optional(),
        registrationDate: isoDateTime.nullable().optional(),
        registrationExpirationDate: isoDateTime.nullable().optional(),
      }),
    )
    .optional(),
  editorAccounts: z.array(z.unknown()).nullable().optional(),
  emails: z.array(z.object({ value: z.string(), source: sourceSchema.optional() })).optional(),
  phoneNumbers: z.array(z.object({ value: z.string(), smsCapable: z.boolean().optional(), source: sourceSchema.optional() })).optional(),
  addresses: z
    .array(
      z.object({
        permanent: z.boolean().optional(),
        mailing: z.boolean().optional(),
        street: nullableString,
        city: nullableString,
        state: nullableString,
        postalCode: nullableString,
      }),
    )
    .optional(),
  username: nullableString,
  readableDepartments: z.array(z.unknown()).nullable().optional(),
  firstName: nullableString,
  lastName: nullableString,
  prefixDegree: nullableString,
  suffixDegree: nullableString,
  birthDate: isoDateTime.nullable().optional(),
  guId: nullableString,
  netId: nullableString,
  openidId: nullableString,
  bakalariId: nullableString,
  edookitId: nullableString,
  edupageId: nullableString,
  jobName: nullableString,
  jobAddress: nullableString,
  educationLevel: nullableString,
  schoolClass: nullableString,
  identityCardNumber: nullableString,
  /** "PERSON" is the only value shown. */
  kind: z.string().optional(),
});
export type UserEditationRequest = z.output<typeof userEditationRequestSchema>;

const actionResponseBase = { text: z.string().optional(), finished: z.boolean() };

export const userSyncResponseSchema = z.object({
  responseType: z.literal('FinishedUserSyncResponse'),
  ...actionResponseBase,
  items: z.array(z.object({ item: labeledIdentifiedSchema.optional(), way: syncWaySchema })),
});
export type UserSyncResponse = z.output<typeof userSyncResponseSchema>;

export const userFetchResponseSchema = z.object({
  responseType: z.literal('FinishedUserFetchResponse'),
  ...actionResponseBase,
  items: z.array(z.object({ item: userEditationRequestSchema })),
});
export type UserFetchResponse = z.output<typeof userFetchResponseSchema>;

// ---- Current user ------------------------------------------------------------------------------

/** Body not shown in the spec: any JSON object. */
export const currentUserSchema = anyObject;
export type CurrentUser = z.output<typeof currentUserSchema>;
