/**
 * How a config key takes effect when the config is reloaded (zigbee2mqtt's `requiresRestart`
 * model): each key of the schema declares it beside its default, and everything that decides what
 * a reload does reads it from here.
 *
 * - `live`: read where it is used, every time (a technician token, a request-body cap, the log
 *   level): the reload applies it without restarting anything.
 * - `station`: read when a station starts (the protocol, the timings, the boxes, the hardware):
 *   the reload applies it by stopping the station (every lock OFF) and starting it again, in the
 *   same process.
 * - `process`: read once when the process starts (where the technician port listens, metrics,
 *   the drain limit systemd already timed): a reload leaves the running value and answers the key
 *   in `restartNeeded` until the process restarts.
 *
 * A key declares its class by wrapping its schema (`live(...)`, `restartsStation(...)`, `restartsProcess(...)`); a
 * section wrapped as a whole gives its class to every key inside that does not declare its own.
 */
import * as z from '../schema.js';

export type ApplyOn = 'live' | 'station' | 'process';

const applyRegistry = z.registry<{ applyOn: ApplyOn }, z.ZodMiniType>();

const declare =
  (applyOn: ApplyOn) =>
  <T extends z.ZodMiniType>(schema: T): T => {
    applyRegistry.add(schema, { applyOn });
    return schema;
  };

/** Applied where it is read, every time: no restart. */
export const live = declare('live');
/** Applied by the reload's in-process station restart. */
export const restartsStation = declare('station');
/** Read once at process start: a reload answers it in restartNeeded. */
export const restartsProcess = declare('process');

/** Wrappers that hold one schema and add no keys of their own. */
function inner(schema: z.ZodMiniType): z.ZodMiniType | null {
  const def = schema._zod.def as { type: string; innerType?: z.ZodMiniType };
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
      return def.innerType ?? null;
    default:
      return null;
  }
}

/**
 * Every key of `schema` with its class, by dotted path. Objects are walked into; anything else
 * (a list, a union, a transformed section) is one key. Throws if a key declares nothing and
 * inherits nothing: a new key must say how it applies.
 */
export function applyClasses(schema: z.ZodMiniType): ReadonlyMap<string, ApplyOn> {
  const out = new Map<string, ApplyOn>();
  const walk = (s: z.ZodMiniType, path: string, inherited: ApplyOn | null): void => {
    let own = inherited;
    for (let at: z.ZodMiniType | null = s; at !== null; at = inner(at)) {
      own = applyRegistry.get(at)?.applyOn ?? own;
      const def = at._zod.def as { type: string; shape?: Record<string, z.ZodMiniType> };
      if (def.type === 'object' && def.shape !== undefined) {
        for (const [key, child] of Object.entries(def.shape)) walk(child, path === '' ? key : `${path}.${key}`, own);
        return;
      }
    }
    if (own === null) throw new Error(`config key ${path} does not declare how it applies on reload (live, station or process)`);
    out.set(path, own);
  };
  walk(schema, '', null);
  return out;
}

function valueAt(config: unknown, path: string): unknown {
  let v: unknown = config;
  for (const key of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** The keys whose value differs between two configs, by class (dotted paths, in schema order). */
export function changedKeys(classes: ReadonlyMap<string, ApplyOn>, before: unknown, after: unknown): Record<ApplyOn, string[]> {
  const changed: Record<ApplyOn, string[]> = { live: [], station: [], process: [] };
  for (const [path, applyOn] of classes) {
    if (JSON.stringify(valueAt(before, path)) !== JSON.stringify(valueAt(after, path))) changed[applyOn].push(path);
  }
  return changed;
}
