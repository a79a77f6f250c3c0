/** The UUID shapes the protocol, the config and the portal check, written once. */

/** 8-4-4-4-12 lowercase hex digits, any version (the protocol's ids as the spec writes them). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A lowercase version-4 UUID (RFC 4122 variant): the station's and its boxes' ids, eventIds. */
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The same shapes in either case (ids coming from a portal, or pasted by a person). */
export const UUID_ANY_CASE_RE = new RegExp(UUID_RE.source, 'i');
export const UUID_V4_ANY_CASE_RE = new RegExp(UUID_V4_RE.source, 'i');
