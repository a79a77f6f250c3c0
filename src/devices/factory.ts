/** Builds the station's hardware from config: the only place that picks real or simulated devices. */
import type { Config } from '../config/schema.js';
import { createLogger, type Logger } from '../log.js';
import { simulatedHardwareFor } from './simulated/hardware.js';
import type { StationHardware } from './types.js';

export function createHardware(config: Config, log?: Logger): Promise<StationHardware> {
  const hw = config.hardware;
  switch (hw.kind) {
    case 'simulated': {
      const sim = simulatedHardwareFor(config, log);
      const kiosk = hw.kiosk;
      if (kiosk === null) return sim.ready.then(() => sim);
      // The kiosk page's code is loaded only for a station that has one.
      return sim.ready.then(() => import('./kiosk/simulated.js')).then(({ withKiosk }) => withKiosk(sim, config, kiosk, log ?? createLogger(config.log.level)));
    }
    case 'board':
      // Loaded only for real hardware: the demo and tests never load onoff or spawn gpiod tools.
      return import('./board.js').then(({ createBoardHardware }) => createBoardHardware(config, hw, log ?? createLogger(config.log.level)));
  }
}
