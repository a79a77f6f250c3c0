/** Builds the station's hardware from config: the only place that picks real or simulated devices. */
import type { StationConfig } from '../config/schema.js';
import { createLogger, type Logger } from '../log.js';
import { simulatedStationFor } from './sim/station.js';
import type { StationHardware } from './types.js';

export function createHardware(config: StationConfig, log?: Logger): Promise<StationHardware> {
  const hw = config.hardware;
  switch (hw.kind) {
    case 'simulated': {
      const station = simulatedStationFor(config, log);
      return station.ready.then(() => station);
    }
    case 'board':
      // Loaded only for real hardware: the demo and tests never load onoff or spawn gpiod tools.
      return import('./board.js').then(({ createBoardHardware }) => createBoardHardware(config, hw, log ?? createLogger(config.log.level)));
  }
}
