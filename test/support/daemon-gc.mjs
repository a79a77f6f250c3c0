// The daemon (dist/src/daemon.js's runDaemon: the same config loading, station, technician port and
// signal handling as `pickup-station run`) with one addition for measuring: over IPC, {gc: true}
// forces V8's garbage collection and answers with process.memoryUsage(). Needs --expose-gc.
//
//   node --expose-gc daemon-gc.mjs --config FILE      (spawned with an 'ipc' stdio channel)
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { runDaemon } from '../../dist/src/daemon.js';

process.on('message', (m) => {
  if (typeof m !== 'object' || m === null || !('gc' in m)) return;
  void (async () => {
    // Twice (weak references, finalizers), then again once V8's background threads have released pages.
    globalThis.gc?.();
    globalThis.gc?.();
    await sleep(300);
    globalThis.gc?.();
    await sleep(300);
    process.send?.({ memory: process.memoryUsage() });
  })();
});
// The IPC channel must not keep the process alive once the station stopped.
process.channel?.unref();
const code = await runDaemon(process.argv.slice(2));
process.exit(Number(code));
