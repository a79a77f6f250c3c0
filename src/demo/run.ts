/**
 * `npm start` / `pickup-station demo`: a simulated station against the embedded reference server
 * on 127.0.0.1, driven from the terminal. The display and the box states are printed as they change.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { DestinationStream } from 'pino';
import { startStation } from '../app.js';
import { validateConfig } from '../config/load.js';
import { simulatedStationFor } from '../devices/sim/station.js';
import { createLogger } from '../log.js';
import { serveUntilSignal } from '../lifecycle.js';
import { ReferenceServer, defaultSeed } from '../sim/index.js';
import { LOCALES, type Locale } from '../config/messages.js';
import { UsageError } from '../errors.js';
import { DEMO_BOX_IDS, DEMO_PASSWORD, DEMO_STATION_ID, demoConfig } from './config.js';
import { frameDisplay, handleCommand, HELP, renderBoxes } from './terminal.js';
import { DEMO_DISPLAYS, demoScreen, type DemoDisplay } from './display-art.js';
import { KioskPanel } from '../kiosk/panel.js';
import { withKioskPanel } from '../kiosk/front-panel.js';

async function prettyStream(): Promise<DestinationStream | undefined> {
  try {
    // pino-pretty is a dev dependency: present after `npm install`, absent in a production bundle.
    const { default: pretty } = await import('pino-pretty');
    return pretty({ sync: true, colorize: process.stdout.isTTY, ignore: 'pid,hostname,svc', translateTime: 'HH:MM:ss.l', singleLine: true });
  } catch {
    return undefined;
  }
}

interface DemoArgs {
  readonly locale: Locale;
  readonly display: DemoDisplay;
  readonly kioskPort: number;
}

/**
 * `--locale cs|en`: the station's own texts (and its Accept-Language). `--display`: the geometry
 * the display is drawn in (16x2, 20x4, 20x4-czech, 128x64, or kiosk: the touchscreen page on
 * 127.0.0.1:--kiosk-port). A wrong command line throws a usage error (main.ts: exit 2 with the
 * usage, no stack).
 */
function demoArgs(args: string[]): DemoArgs {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { locale: { type: 'string', default: 'en' }, display: { type: 'string', default: 'text' }, 'kiosk-port': { type: 'string', default: '8091' } },
  });
  const { locale, display } = values;
  if (!(LOCALES as readonly string[]).includes(locale)) throw new UsageError(`demo: --locale must be ${LOCALES.join(' or ')}, got "${locale}"`);
  if (!(DEMO_DISPLAYS as readonly string[]).includes(display)) throw new UsageError(`demo: --display must be ${DEMO_DISPLAYS.join(', ')}, got "${display}"`);
  const kioskPort = Number(values['kiosk-port']);
  if (!Number.isInteger(kioskPort) || kioskPort < 0 || kioskPort > 65_535) throw new UsageError(`demo: --kiosk-port must be a port number, got "${values['kiosk-port']}"`);
  return { locale: locale as Locale, display: display as DemoDisplay, kioskPort };
}

export async function runDemo(args: string[]): Promise<number> {
  const { locale, display, kioskPort } = demoArgs(args);
  const stationDef = { id: DEMO_STATION_ID, password: DEMO_PASSWORD, boxes: DEMO_BOX_IDS };
  const seed = defaultSeed(stationDef);
  const server = new ReferenceServer({ stations: [stationDef], ...seed });
  const serverUrl = await server.start();
  const origin = new URL(serverUrl).origin;

  const { config, problems } = validateConfig(demoConfig(origin, locale));
  if (!config) throw new Error(`demo config invalid: ${JSON.stringify(problems)}`);
  const log = createLogger(config.log.level, await prettyStream());
  const hardware = simulatedStationFor(config);
  // --display kiosk: the touchscreen page is the display (and a keypad beside the typed commands).
  const panel =
    display === 'kiosk'
      ? new KioskPanel({ port: kioskPort, cancelLabel: locale === 'cs' ? 'Zrušit' : 'Cancel', keepAliveMs: 15_000, reconnect: { initialMs: 500, maxMs: 5_000, factor: 2 }, log })
      : null;
  if (panel) await panel.start();

  console.log(`pickup-station demo: simulated station ${config.station.id} (texts: ${locale})`);
  console.log(`reference server ${serverUrl}`);
  console.log(`items to deposit: ${seed.deposits.map((d) => `${d.identifierValue} (${d.identifierType ?? 'BAR_CODE'})`).join(', ')}`);
  console.log(`PINs to pick up:  ${seed.pickups.map((p) => p.pin).join(', ')}`);
  console.log(HELP);

  if (panel) console.log(`kiosk page: http://127.0.0.1:${panel.port}/ (open it in a browser at 800x480)`);

  const station = await startStation({ config, password: DEMO_PASSWORD, log, hardware: panel ? withKioskPanel(hardware, panel) : hardware });
  station.runtime.onEvent((e) => {
    if (e.type === 'display') console.log(display === 'text' || display === 'kiosk' ? frameDisplay(e.lines) : demoScreen(display, e.lines));
    if (e.type === 'box') console.log(renderBoxes(station.runtime.snapshot().boxes, config.station.boxes));
    if (e.type === 'alarm') console.log(`${e.active ? 'ALARM' : 'alarm cleared'}: ${e.alarm.detail}`);
  });
  // The buzzer is the terminal bell.
  hardware.buzzer.onBeep(() => process.stdout.write('\x07'));

  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    const out = handleCommand(line, hardware, config.station.boxes, station.runtime);
    if (out) console.log(out);
    if (out === 'bye') process.kill(process.pid, 'SIGINT');
  });

  const code = await serveUntilSignal(station, log);
  rl.close();
  await server.stop();
  return code;
}
