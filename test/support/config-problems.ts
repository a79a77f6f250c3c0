import { ConfigError } from '../../src/errors.js';

/** The problems of the ConfigError `fn` throws; fails when it throws nothing or something else. */
export function configProblems(fn: () => unknown): ConfigError['problems'] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
}
