/** What a reload does (plan.ts), as a type and in words: shared with stationctl, which loads nothing else of the supervisor. */
export type ReloadPlanKind = 'nothing' | 'live' | 'restart-station';

/** What a reload did, in words (the SIGHUP log line, the technician's answer, stationctl). */
export function reloadedHow(kind: ReloadPlanKind): string {
  switch (kind) {
    case 'nothing':
      return 'no key changed';
    case 'live':
      return 'live keys applied, the station kept running';
    case 'restart-station':
      return 'station restarted with the new config';
  }
}
