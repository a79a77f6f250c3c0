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
import * as z from '../schema.js';

const uuid = z.guid();
const isoDateTime = z.string();
/** A shape the spec does not show: any JSON object, kept as is. */
const anyObject = z.record(z.string(), z.unknown());

// ---- OAuth2 token ------------------------------------------------------------------------------

export const tokenResponseSchema = z.object({
  access_token: z.string().check(z.minLength(1)),
  token_type: z.string().check(z.refine((t) => t.toLowerCase() === 'bearer', 'token_type must be "bearer"')),
  /** Seconds (RFC 6749 §5.1; the spec leaves the unit open). */
  expires_in: z.number().check(z.int(), z.nonnegative()),
  /** Space-separated scope names, e.g. "EVIDED EXTERNAL_SYSTEM" (optional in RFC 6749). */
  scope: z.optional(z.string()),
  jti: z.optional(z.string()),
});
export type TokenResponse = z.output<typeof tokenResponseSchema>;

// ---- Search ------------------------------------------------------------------------------------

export const SEARCH_KINDS = ['document', 'authority', 'exemplar', 'user'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const fondSchema = z.object({ id: z.number().check(z.int()), name: z.optional(z.string()), text: z.optional(z.string()) });
const statusSchema = z.object({ id: z.number().check(z.int()), text: z.optional(z.string()) });
const coverSchema = z.object({ id: z.number().check(z.int()), name: z.optional(z.string()), text: z.optional(z.string()) });

export const documentItemSchema = z.object({
  id: uuid,
  kindedId: z.number().check(z.int()),
  name: z.string(),
  text: z.optional(z.string()),
  subTitle: z.optional(z.string()),
  type: z.literal('document'),
  author: z.optional(z.nullable(z.string())),
  isbn: z.optional(z.nullable(z.string())),
  publisher: z.optional(z.nullable(z.string())),
  /** 0 when unknown. */
  publicationYear: z.optional(z.number().check(z.int())),
  fond: z.optional(fondSchema),
  /** Status ids seen: 0 undefined, 2 STUB, 3 CATALOGING, 4 CATALOGED. */
  status: z.optional(statusSchema),
  lastUpdateDate: z.optional(isoDateTime),
  cover: z.optional(z.nullable(coverSchema)),
  directoryId: z.optional(z.number().check(z.int())),
  exemplarable: z.optional(z.boolean()),
  withForeignOccurrences: z.optional(z.boolean()),
  volumeable: z.optional(z.boolean()),
  periodical: z.optional(z.boolean()),
  rating: z.optional(z.unknown()),
});
export type DocumentItem = z.output<typeof documentItemSchema>;

export const authorityItemSchema = z.object({
  id: uuid,
  kindedId: z.number().check(z.int()),
  name: z.string(),
  type: z.literal('authority'),
  text: z.optional(z.string()),
  fond: z.optional(fondSchema),
  status: z.optional(statusSchema),
  lastUpdateDate: z.optional(isoDateTime),
  cover: z.optional(z.nullable(coverSchema)),
  directoryId: z.optional(z.number().check(z.int())),
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
} as const satisfies { [K in SearchKind]: z.ZodMiniType<SearchItemByKind[K]> };

/** The search envelope with the item schema of one kind. */
export function searchEnvelopeSchema<T extends z.ZodMiniType>(item: T) {
  return z.object({
    title: z.optional(z.string()),
    subtitle: z.optional(z.nullable(z.string())),
    type: z.optional(z.string()),
    id: z.optional(z.string()),
    result: z.object({
      totalElements: z.number().check(z.int(), z.nonnegative()),
      duration: z.optional(z.number().check(z.int())),
      content: z.array(item),
      numberOfElements: z.number().check(z.int(), z.nonnegative()),
      totalPages: z.number().check(z.int(), z.nonnegative()),
      /** First page is 1. */
      pageNumber: z.number().check(z.int()),
      pageSize: z.number().check(z.int()),
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
  kindedId: z.number().check(z.int()),
  name: z.string(),
  type: z.literal('document'),
  text: z.optional(z.string()),
  fond: z.optional(z.object({ id: z.number().check(z.int()), name: z.optional(z.string()) })),
  author: z.optional(z.nullable(z.string())),
  /** Unlike search results, an object here. */
  isbn: z.optional(z.nullable(z.object({ value: z.string(), trimmedValue: z.string() }))),
  publisher: z.optional(z.nullable(z.string())),
  publicationYear: z.optional(z.number().check(z.int())),
  cover: z.optional(z.nullable(z.object({ id: z.number().check(z.int()) }))),
  /** Element shape not shown in the spec. */
  fields: z.optional(z.array(z.unknown())),
});
export type NewestDocument = z.output<typeof newestDocumentSchema>;
export const newestDocumentsSchema = z.array(newestDocumentSchema);

// ---- Record editation --------------------------------------------------------------------------

export const editationSubfieldSchema = z.object({
  id: uuid,
  /** Subfield code, e.g. "a"; "main" is the virtual composite code of a complex authority. */
  code: z.string(),
  value: z.optional(z.unknown()),
  empty: z.optional(z.boolean()),
  /** "<code>#<rep>.<subcode>#<rep>" */
  marcId: z.optional(z.string()),
  text: z.optional(z.string()),
  url: z.optional(z.boolean()),
  /** True when the value references another record. */
  ofRecord: z.optional(z.boolean()),
  raw: z.optional(z.unknown()),
  recordId: z.optional(z.nullable(uuid)),
  /** "D.<code>.<subcode>" */
  typeId: z.optional(z.string()),
  fieldTypeText: z.optional(z.string()),
});
export type EditationSubfield = z.output<typeof editationSubfieldSchema>;

export const editationFieldSchema = z.object({
  id: uuid,
  /** Field type code, e.g. "245". */
  code: z.string(),
  fieldRepetition: z.optional(z.number().check(z.int(), z.nonnegative())),
  ind1: z.optional(z.string()),
  ind2: z.optional(z.string()),
  empty: z.optional(z.boolean()),
  /** "<code>#<repetition>" */
  marcId: z.optional(z.string()),
  text: z.optional(z.string()),
  /** "D.<code>" */
  typeId: z.optional(z.string()),
  fieldTypeText: z.optional(z.string()),
  fields: z._default(z.array(editationSubfieldSchema), []),
});
export type EditationField = z.output<typeof editationFieldSchema>;

export const recordEditationSchema = z.object({
  /** Opaque editation id ({recordEditationId}). */
  id: z.string().check(z.minLength(1)),
  /** The record being edited. */
  recordId: uuid,
  text: z.optional(z.string()),
  directoryId: z.optional(z.number().check(z.int())),
  type: z.optional(z.enum(['document', 'authority'])),
  draft: z.optional(z.boolean()),
  revisionSaved: z.optional(z.boolean()),
  fond: z.optional(z.object({ id: z.number().check(z.int()), text: z.optional(z.string()) })),
  fields: z._default(z.array(editationFieldSchema), []),
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
const sourceSchema = z.object({ id: z.string(), text: z.optional(z.string()) });
const nullableString = z.optional(z.nullable(z.string()));

export const userEditationRequestSchema = z.object({
  // The spec types id as integer; a fetched user that was never saved may plausibly have none.
  id: z.optional(z.nullable(z.number().check(z.int()))),
  active: z.optional(z.boolean()),
  readerAccounts: z.optional(
    z.array(
      z.object({
        readerCategory: z.optional(sourceSchema),
        cardNumber: z.optional(z.nullable(z.string())),
        registrationDate: z.optional(z.nullable(isoDateTime)),
        registrationExpirationDate: z.optional(z.nullable(isoDateTime)),
      }),
    ),
  ),
  editorAccounts: z.optional(z.nullable(z.array(z.unknown()))),
  emails: z.optional(z.array(z.object({ value: z.string(), source: z.optional(sourceSchema) }))),
  phoneNumbers: z.optional(z.array(z.object({ value: z.string(), smsCapable: z.optional(z.boolean()), source: z.optional(sourceSchema) }))),
  addresses: z.optional(
    z.array(
      z.object({
        permanent: z.optional(z.boolean()),
        mailing: z.optional(z.boolean()),
        street: nullableString,
        city: nullableString,
        state: nullableString,
        postalCode: nullableString,
      }),
    ),
  ),
  username: nullableString,
  readableDepartments: z.optional(z.nullable(z.array(z.unknown()))),
  firstName: nullableString,
  lastName: nullableString,
  prefixDegree: nullableString,
  suffixDegree: nullableString,
  birthDate: z.optional(z.nullable(isoDateTime)),
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
  kind: z.optional(z.string()),
});
export type UserEditationRequest = z.output<typeof userEditationRequestSchema>;

const actionResponseBase = { text: z.optional(z.string()), finished: z.boolean() };

export const userSyncResponseSchema = z.object({
  responseType: z.literal('FinishedUserSyncResponse'),
  ...actionResponseBase,
  items: z.array(z.object({ item: z.optional(labeledIdentifiedSchema), way: syncWaySchema })),
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
