/** The daemon's StationView: whatever station the technician port's host runs now (it changes on reload). */
import type { StationHost } from '../debug/host.js';
import { HttpError } from '../debug/http.js';
import type { StationNow, StationView } from './view.js';

export function hostView(host: StationHost): StationView {
  // The label stays the id the process started with: a series must not change name mid-run.
  const stationId = host.config.station.id;
  return {
    stationId,
    current(): StationNow | null {
      try {
        const { runtime, hardware } = host.station;
        return { runtime, hardware, boxes: host.core.boxes };
      } catch (e) {
        // 503 "reloading": the old station is stopped and the new one not yet started.
        if (e instanceof HttpError) return null;
        throw e;
      }
    },
  };
}
