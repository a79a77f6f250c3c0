/**
 * Why a serial port went away, and its words. Apart from link.ts so that a driver can name a loss
 * without loading serialport's native addon (simulated hardware on an in-process line loads none).
 */
/**
 * Why a port went away, as a type rather than a string (serialport marks its own errors the same
 * way: `disconnected` on a close the device caused, `canceled` on a read ended by a close):
 * - disconnected: the device went away (unplugged, socat gone): serialport's close with `disconnected`;
 * - closed: the port closed without the device going away (closed under us, not by an unplug);
 * - io-error: the OS failed a read or write; its words kept for the health detail.
 */
export type SerialLoss = { readonly kind: 'disconnected' } | { readonly kind: 'closed' } | { readonly kind: 'io-error'; readonly message: string };

/** A port's `close` event as a loss: serialport passes an error with `disconnected` set when the device went away. */
export function lossOfClose(err: (Error & { disconnected?: boolean }) | null): SerialLoss {
  return err?.disconnected === true ? { kind: 'disconnected' } : { kind: 'closed' };
}

/** The loss in the words a technician reads in the device's health ("… missing (disconnected)"). */
export function describeLoss(loss: SerialLoss): string {
  switch (loss.kind) {
    case 'disconnected':
      return 'disconnected';
    case 'closed':
      return 'closed';
    case 'io-error':
      return `I/O error: ${loss.message}`;
  }
}
