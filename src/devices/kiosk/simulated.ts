/**
 * A simulated station with a real kiosk touchscreen page (`hardware.kiosk` in the config): the
 * page, its keys and its help controls are the real ones, on a simulated station's locks and doors
 * — what the daemon's kiosk tests run, as the demo's `--display kiosk` does in its own process.
 */
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { kioskDisplaySchema } from '../input/schema.js';
import type { SimulatedHardware } from '../simulated/hardware.js';
import type { StationHardware } from '../types.js';
import { withKioskPanel } from './front-panel.js';
import { KioskPanel } from './panel.js';
import type * as z from '../../schema.js';

export async function withKiosk(sim: SimulatedHardware, config: Config, kiosk: z.output<typeof kioskDisplaySchema>, log: Logger): Promise<StationHardware> {
  const panel = new KioskPanel({
    port: kiosk.port,
    cancelLabel: kiosk.cancelLabel,
    lang: config.messages.locale,
    words: config.messages.assist.kiosk,
    holdMs: config.speech.holdMs,
    secret: { kind: 'file', path: kiosk.secretHashFile },
    ownPort: kiosk.developmentOwnPort,
    limits: kiosk,
    reconnect: kiosk.reconnect,
    pageTimeoutMs: kiosk.pageTimeoutMs,
    browser: kiosk.browser,
    log: log.child({ component: 'kiosk' }),
  });
  await panel.start();
  return withKioskPanel(sim, panel);
}
