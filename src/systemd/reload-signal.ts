/**
 * SIGHUP (`systemctl reload pickup-station`) reloads the config exactly as the technician reload
 * does (Supervisor.reload: validate first and keep the running config on a bad file; refuse while
 * a reader uses the station; stop the station — every lock OFF — and start it with the new config).
 * Resolves with the line to log; rejects with the refusal. Never echoes a config value: a bad file
 * is told by its paths and messages only.
 */
import { errorMessage } from '../errors.js';
import type { Supervisor } from '../supervisor/supervisor.js';

export async function reloadOnSignal(supervisor: Supervisor): Promise<string> {
  let result;
  try {
    result = await supervisor.reload();
  } catch (e) {
    throw new Error(`not reloaded: ${errorMessage(e)}`);
  }
  if (!result.ok) {
    const where = result.problems.map((p) => `${p.path || '(file)'}: ${p.message}`).join('; ');
    throw new Error(`invalid config ${result.source}, the running config stays: ${where}`);
  }
  const restart = result.restartNeeded.length > 0 ? ` (${result.restartNeeded.join(', ')} take effect after a restart)` : '';
  return `config reloaded; station restarted${restart}`;
}
