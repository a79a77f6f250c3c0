/**
 * `npm start` / `pickup-station demo`: a simulated station against the embedded reference server
 * on 127.0.0.1, driven from the terminal. The display is the terminal display driver imitating the
 * field's 20x4 character LCD (fitted and transliterated as that LCD shows it); box states are
 * printed as they change. The technician port listens on loopback with a service token made for
 * this run only, so the page shows the same station from the technician's side.
 */
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { DestinationStream } from 'pino';
import { startStation } from '../app.js';
import { TerminalDisplay } from '../devices/display/terminal-display.js';
import type { StationHardware } from '../devices/types.js';
import { createLogger, LogRing } from '../log.js';
import { startSupervised } from '../supervised.js';
import { hashToken, newToken } from '../tokens/tokens.js';
import { validateConfig } from '../config/load.js';
import { simulatedHardwareFor } from '../devices/simulated/hardware.js';
import { serveUntilSignal } from '../lifecycle.js';
import { ReferenceServer, defaultSeed } from '../reference-server/index.js';
import { LOCALES, type Locale } from '../config/messages.js';
import { UsageError } from '../errors.js';
import { DEMO_BOX_IDS, DEMO_PASSWORD, DEMO_RFID_ITEMS, DEMO_STATION_ID, demoConfig } from './config.js';
import { handleCommand, HELP, renderBoxes } from './terminal.js';
import { DEMO_DISPLAYS, demoScreen, type DemoDisplay } from './display-art.js';
import { KioskPanel } from '../devices/kiosk/panel.js';
import { withKioskPanel } from '../devices/kiosk/front-panel.js';
import { kioskSecretHash } from '../devices/kiosk/secret.js';
import { kioskDisplaySchema } from '../devices/input/schema.js';

/** The kiosk page's bounds at the profile's defaults. */
const KIOSK_LIMITS = kioskDisplaySchema.parse({ kind: 'kiosk' });

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
  if (!Number.isInteger(kioskPort) || kioskPort < 0 || kioskPort > 65_535)
    throw new UsageError(`demo: --kiosk-port must be a port number, got "${values['kiosk-port']}"`);
  return { locale: locale as Locale, display: display as DemoDisplay, kioskPort };
}

/** The display of the stations in the field: a 20x4 character LCD with an ASCII font. */
const DEMO_LCD = { columns: 20, rows: 4 } as const;

export async function runDemo(args: string[]): Promise<number> {
  const { locale, display, kioskPort } = demoArgs(args);
  const stationDef = { id: DEMO_STATION_ID, password: DEMO_PASSWORD, boxes: DEMO_BOX_IDS };
  const base = defaultSeed(stationDef);
  // The library's RFID-tagged items, known to the server by their item numbers (boxes 7-9).
  const rfidItems = [DEMO_RFID_ITEMS.danish, DEMO_RFID_ITEMS.iso, DEMO_RFID_ITEMS.set].map((identifierValue, i) => ({
    identifierValue,
    identifierType: 'RFID' as const,
    stationId: stationDef.id,
    boxId: DEMO_BOX_IDS[6 + i] ?? '',
  }));
  const seed = { ...base, deposits: [...base.deposits, ...rfidItems] };
  const server = new ReferenceServer({ stations: [stationDef], ...seed });
  const serverUrl = await server.start();
  const origin = new URL(serverUrl).origin;

  // A token for this run only: its hash goes into the config, the token itself only to this terminal.
  const token = newToken();
  const { config, problems } = validateConfig({
    ...demoConfig(origin, locale),
    technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'demo', scope: 'service', hash: hashToken(token) }] },
  });
  if (!config) throw new Error(`demo config invalid: ${JSON.stringify(problems)}`);
  const ring = new LogRing(config.technician.logLines);
  const log = createLogger(config.log.level, await prettyStream(), { ring });
  const hardware = simulatedHardwareFor(config, log);
  await hardware.ready;
  // What a person watches: by default the terminal display driver as the field's 20x4 LCD; with
  // --display another geometry, drawn by that display's own driver code from the display events;
  // with --display kiosk the touchscreen page (and a keypad beside the typed commands).
  const kioskSecret = randomBytes(32).toString('hex');
  const lcd = display === 'text' ? new TerminalDisplay({ size: DEMO_LCD, charset: 'ascii', overflow: 'wrap', frame: 'unicode' }) : null;
  const panel =
    display === 'kiosk'
      ? new KioskPanel({
          port: kioskPort,
          cancelLabel: locale === 'cs' ? 'Zrušit' : 'Cancel',
          lang: locale,
          words: config.messages.assist.kiosk,
          holdMs: config.speech.holdMs,
          // The demo's own per-run secret, in the URL it prints (a station's comes from its socket unit).
          secret: { kind: 'hash', hash: kioskSecretHash(kioskSecret) },
          // The demo is a development setup: no systemd, so its own port.
          ownPort: true,
          limits: KIOSK_LIMITS,
          reconnect: { initialMs: 500, maxMs: 5_000, factor: 2 },
          pageTimeoutMs: KIOSK_LIMITS.pageTimeoutMs,
          // No kiosk unit here: whoever runs the demo opens the page (and opens it again).
          browser: { ...KIOSK_LIMITS.browser, restartCommand: null },
          log,
        })
      : null;
  if (panel) await panel.start();
  const fieldHardware = (): StationHardware => (lcd ? hardware.withDisplay(lcd) : panel ? withKioskPanel(hardware, panel) : hardware);

  console.log(`pickup-station demo: simulated station ${config.station.id} (texts: ${locale})`);
  console.log(`reference server ${serverUrl}`);
  console.log(`items to deposit: ${seed.deposits.map((d) => `${d.identifierValue} (${d.identifierType ?? 'BAR_CODE'})`).join(', ')}`);
  console.log(`PINs to pick up:  ${seed.pickups.map((p) => p.pin).join(', ')}`);
  console.log(HELP);

  const loaded = { config, password: DEMO_PASSWORD, warnings: [] };
  const first = await startStation({ ...loaded, log, hardware: fieldHardware() });
  const supervised = await startSupervised({
    station: first,
    loaded,
    configFile: null,
    env: {},
    log,
    ring,
    start: (l, signal) => startStation({ ...l, log, hardware: fieldHardware(), signal }),
  });
  const { supervisor, port } = supervised;
  if (port?.url) console.log(`technician page: ${port.url}/  (service token for this run only: ${token})`);
  if (panel)
    console.log(
      `kiosk page: http://127.0.0.1:${panel.port}/#k=${kioskSecret} (open it in a browser at 800x480; the key in the address is this run's kiosk secret)`,
    );
  supervisor.observer.follow((e) => {
    if (e.type === 'display' && !lcd) console.log(demoScreen(display === 'kiosk' || display === 'text' ? '20x4' : display, e.lines));
    if (e.type === 'box') console.log(renderBoxes(supervisor.station.runtime.snapshot().boxes, config.station.boxes));
    if (e.type === 'alarm') console.log(`${e.active ? 'ALARM' : 'alarm cleared'}: ${e.alarm.detail}`);
  });
  // The buzzer is the terminal bell; what the station says is printed.
  hardware.buzzer.onBeep(() => process.stdout.write('\x07'));
  hardware.speech.onUtterance((u) => console.log(u.kind === 'say' ? `speaks (${u.voice}, ${u.volume} %): ${u.text}` : `tone (${u.volume} %): ${u.text}`));

  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    const out = handleCommand(line, hardware, config.station.boxes, supervisor.station.runtime);
    if (out) console.log(out);
    if (out === 'bye') process.kill(process.pid, 'SIGINT');
  });

  // The demo stops at once on Ctrl-C (no drain); its stop's steps are bounded as the daemon's are.
  const code = await serveUntilSignal(supervised, log, {}, { drainLimitMs: 0, stopLimitMs: config.timing.stopLimitMs });
  rl.close();
  await server.stop();
  return code;
}
