/** The daemon's StationView: whatever station the supervisor runs now (it changes on reload). */
import type { Supervisor } from '../supervisor/supervisor.js';
import type { StationNow, StationView } from './view.js';

export function supervisorView(supervisor: Supervisor): StationView {
  // The label stays the id the process started with: a series must not change name mid-run.
  const stationId = supervisor.startConfig.station.id;
  return {
    stationId,
    current(): StationNow | null {
      // Null between a reload's stop of the old station and the start of the new one.
      const now = supervisor.now();
      if (now === null) return null;
      return { runtime: now.station.runtime, hardware: now.station.hardware, boxes: now.core.boxes };
    },
    restartNeeded: () => supervisor.restartNeeded(),
  };
}
