/** The reader options a config section sets besides its serial line (the board's readers and the simulated one alike). */
import type { SimulatedRfidReaderConfig } from './schema.js';

export type Behaviour = Omit<SimulatedRfidReaderConfig, 'path'>;

export function behaviour(c: Behaviour) {
  return {
    send: c.send,
    busAddress: c.busAddress,
    frame: c.frame,
    inventoryIntervalMs: c.inventoryIntervalMs,
    absentRounds: c.absentRounds,
    answerTimeoutMs: c.answerTimeoutMs,
    failuresBeforeReconnect: c.failuresBeforeReconnect,
    readAttempts: c.readAttempts,
    blockOrder: c.blockOrder,
    blocksPerRead: c.blocksPerRead,
    maxBlocks: c.maxBlocks,
    reconnect: c.reconnect,
    openTimeoutMs: c.openTimeoutMs,
  };
}
