/** Reference station server: public API. */
export { ReferenceServer, DEFAULT_ABSENCE_MS, DEFAULT_PATH_PREFIX, EVENT_CACHE_LIMIT } from './server.js';
export { CONTROL_PREFIX, type ControlTarget } from './control.js';
export { decide, type DecideContext, type Decision } from './decide.js';
export { initialStationState, isStationAvailable, snapshot, type StationSimState, type ActiveAction } from './state.js';
export { validateRequest, authenticate, parseBasicAuth, UUID_V4_LOWER, type SimRequest } from './validate.js';
export { FAULT_KINDS, DEFAULT_DELAY_MS, DEFAULT_MALFORMED_BODY, DEFAULT_EXTRA_FIELDS, HTML_502_BODY, normalizeFault } from './faults.js';
export { checkSimData, parseSimData } from './data.js';
export * from './seed.js';
export * from './messages.js';
export * from './errors.js';
export type * from './types.js';
export { runSimServerCli, describeData, SIM_SERVER_USAGE, type SimCliIo } from './cli.js';
