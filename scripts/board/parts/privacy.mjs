// Patrons' identifiers on the card: a deposit by an RFID item number and a pickup by PIN, the
// station at log level debug; then every journal file (the station's own namespace and the
// system's), the station's state and config folders, the runtime folder and USBGuard's audit log
// are searched on the board, byte for byte, for the full values: none may be there. A positive
// control first: the same search finds a value that is logged in full (the station's id), so a
// search that cannot read the files does not pass.
export const ci = 'two station restarts (debug level and back) and a scan of every journal file: more than the CI budget leaves the board; --full and --parts';
export const title = "patrons' identifiers: a deposit and a pickup at debug level, and no journal or state file on the card holds them in full";

const ITEM = 'e004010024681357';
const PIN = '908172';
const BOX = 7;

export function serverData(station, boxId) {
  return {
    deposits: [{ identifierValue: ITEM, identifierType: 'RFID', stationId: station.id, boxId: boxId(BOX) }],
    pickups: [{ pin: PIN, stationId: station.id, boxIds: [boxId(BOX)] }],
  };
}

const FOLDERS = ['/var/log/journal', '/var/lib/pickup-station', '/run/pickup-station', '/etc/pickup-station', '/var/log/usbguard', '/run/log/journal'];

export default async function privacy(board) {
  const { g, check, figure, putConfig, restartStation, deposit, pickup, STATION } = board;
  await putConfig({ log: { level: 'debug' } });
  await restartStation('at log level debug');
  await deposit(ITEM, BOX);
  await pickup(PIN, [BOX]);
  // What journald holds is on the disk once it syncs; the station's state file likewise.
  await g('journalctl --namespace=pickup-station --sync 2>/dev/null; journalctl --sync; sync');

  const search = async (value) => (await g(`grep -rlaF -- '${value}' ${FOLDERS.join(' ')} 2>/dev/null; true`)).trim().split('\n').filter(Boolean);
  const control = await search(STATION.id);
  check(
    control.some((f) => f.startsWith('/var/log/journal/') && f.includes('pickup-station')),
    `the search reads the station's journal files: the station id is found in ${control.length} file(s)`,
  );
  const files = (await g(`find ${FOLDERS.join(' ')} -type f 2>/dev/null | wc -l; du -sc ${FOLDERS.join(' ')} 2>/dev/null | tail -1`)).trim().split('\n');
  const item = await search(ITEM);
  const pin = await search(PIN);
  check(item.length === 0, `the item number ${ITEM.slice(0, 4)}… in no file (${item.join(', ') || 'none'})`);
  check(pin.length === 0, `the PIN in no file (${pin.join(', ') || 'none'})`);
  const masked = await g(`journalctl --namespace=pickup-station -b --no-pager -o cat | grep -c 'item-identify' || true`);
  figure('privacy: files searched, their size (du -sc, KiB)', `${files[0]} files, ${(files[1] ?? '').split(/\s+/)[0]} KiB`);
  figure('privacy: journal lines naming item-identify (masked values)', masked.trim());
  await putConfig();
  await restartStation('at the shipped log level again');
}
