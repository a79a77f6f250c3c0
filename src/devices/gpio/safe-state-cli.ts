/**
 * `pickup-station safe-state [--config FILE | --profile FILE]`: the command line around
 * safe-state.ts. Exit 0 = every lock output OFF (or simulated hardware: nothing to do),
 * 1 = a line could not be driven OFF (named on stderr), 78 = bad config or profile.
 * Loaded by src/main.ts without the daemon's modules, so it starts fast.
 */
import { parseArgs } from 'node:util';
import { ConfigError, EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, errorMessage } from '../../errors.js';
import { loadLockProfile, profileOfConfig } from '../../config/lock-profile.js';
import { driveLocksOff } from './safe-state.js';

/**
 * Its one warning (the auto backend falling back to the character device) as a line on stderr,
 * like the rest of its output: no logger, so pino is not loaded before the locks are OFF.
 */
const stderrWarn = {
  warn(obj: unknown, msg?: string): void {
    console.error(`safe-state: warning: ${msg ?? ''} ${JSON.stringify(obj)}`);
  },
};

export async function runSafeState(args: string[], defaultConfigFile: string): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' }, profile: { type: 'string', short: 'p' } }, strict: true });
  let profile;
  try {
    const file = values.profile ?? profileOfConfig(values.config ?? defaultConfigFile);
    if (file === null) {
      process.stdout.write('safe-state: simulated hardware, nothing to drive\n');
      return EXIT_OK;
    }
    profile = loadLockProfile(file);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  // Until the locks are OFF this process must not end by itself: an exit with nothing left to do
  // would be status 0, which systemd takes for "safe".
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const r = await driveLocksOff(profile, stderrWarn);
    process.stdout.write(`safe-state: ${r.lines.length} lock output(s) OFF via ${r.backend} in ${r.ms} ms\n`);
    return EXIT_OK;
  } catch (e) {
    console.error(`safe-state: ${errorMessage(e)}`);
    return EXIT_FAILURE;
  } finally {
    clearInterval(keepAlive);
  }
}
