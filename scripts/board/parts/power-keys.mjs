// No key of any keyboard turns the station off, on the base image (no kiosk: tty1 a text console,
// without a getty since the station is installed). A USB keyboard allowed as a clone of an allowed
// device would be (an administrator's USBGuard rule, as the kiosk part adds) and a keyboard's system
// keys (board-io's uhid device: power, sleep, reboot); then Ctrl+Alt+Del, Ctrl+Alt+Del more than
// seven times in two seconds, the power, sleep and reboot keys (short and held), Alt+SysRq+B. After
// each: the same boot, the same station process, /state goes on — and the key reached the one who
// would act on it (scripts/board/power-keys.mjs says how each is judged).
import { heartbeat, keyTries, plugKeyboards, pressEach, settingsInForce, unplugKeyboards } from '../power-keys.mjs';

export const ci =
  "eleven keys, each watched 13-34 s for a shutdown that must not come (352 s alone on 5 Dec 2026): more than the CI budget leaves the board; input-isolation, in CI, proves the station's own devices are kept from logind; --full and --parts";
export const title = 'no key of any keyboard turns the station off (base image): Ctrl+Alt+Del, its burst, power, sleep, reboot, Alt+SysRq+B';

const KBD = 'keys-kbd';

export default async function powerKeys(board) {
  const { figure, say } = board;
  const t0 = performance.now();
  try {
    await settingsInForce(board);
    await plugKeyboards(board, KBD);
    await heartbeat(board, true);
    const rows = await pressEach(board, keyTries(board));
    for (const r of rows) say(`key row: ${r.what}: ${r.reached} line(s) of evidence, judged over ${r.took} s`);
  } finally {
    await unplugKeyboards(board, KBD);
    await heartbeat(board, false);
  }
  figure('power-keys part (base image), s', ((performance.now() - t0) / 1000).toFixed(0));
}
