/** Builds the station's hardware from config: the only place that picks real or simulated devices. */
import type { StationConfig } from '../config/schema.js';
import { SimulatedStation } from './sim/station.js';
import type { StationHardware } from './types.js';

export function createHardware(config: StationConfig): Promise<StationHardware> {
  const boxNumbers = config.station.boxes.map((b) => b.number);
  const hw = config.hardware;
  switch (hw.kind) {
    case 'simulated':
      return Promise.resolve(
        new SimulatedStation({
          boxNumbers,
          doorSpringMs: hw.doorSpringMs,
          inputVoltage: hw.inputVoltage,
          internetSignalStrength: hw.internetSignalStrength,
        }),
      );
  }
}
