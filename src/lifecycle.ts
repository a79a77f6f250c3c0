/** Process lifecycle of a running station: signals, crashes, exit codes. */
import type { Station } from './app.js';
import { errorMessage } from './errors.js';
import type { Logger } from './log.js';

export interface LifecycleHooks {
  /** Called once, first thing when stopping begins (signal or crash): e.g. systemd's STOPPING=1. */
  readonly onStopping?: () => void;
}

/** Run until SIGINT/SIGTERM; on a crash drive the locks OFF before exiting. */
export function serveUntilSignal(station: Station, log: Logger, hooks: LifecycleHooks = {}): Promise<number> {
  return new Promise((resolve) => {
    let exiting = false;
    const exit = (code: number, why: string): void => {
      if (exiting) return;
      exiting = true;
      log.info({ why }, 'stopping');
      try {
        hooks.onStopping?.();
      } catch (e) {
        log.warn({ error: errorMessage(e) }, 'stopping hook failed');
      }
      station
        .stop()
        .catch((e: unknown) => log.error({ error: errorMessage(e) }, 'stop failed'))
        .finally(() => resolve(code));
    };
    process.once('SIGTERM', () => exit(0, 'SIGTERM'));
    process.once('SIGINT', () => exit(0, 'SIGINT'));
    process.on('uncaughtException', (e) => {
      log.fatal({ error: errorMessage(e), stack: e.stack }, 'crash: driving every lock OFF');
      exit(1, 'uncaught exception');
    });
    process.on('unhandledRejection', (e) => {
      log.fatal({ error: errorMessage(e) }, 'crash (unhandled rejection): driving every lock OFF');
      exit(1, 'unhandled rejection');
    });
  });
}

