/** Waiting as a promise: the one sleep of the code base (on the global timers, so fake timers drive it). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
