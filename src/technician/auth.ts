/**
 * The technician port's tokens per config: which token entries the running config accepts. The
 * tokens themselves (making, hashing, checking) are src/tokens/tokens.ts.
 */
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { loadTokenEntries, TokenStore } from '../tokens/tokens.js';

/**
 * The tokens of each config the supervisor runs: the config's entries plus the `technician-tokens`
 * credential, read when that config is accepted. At start a bad credential does not stop the
 * station: it is logged and only the config's tokens count (fewer tokens, never more); on reload
 * it refuses the new config (registered as the supervisor's reload check).
 */
export class TechnicianTokens {
  private readonly byConfig = new WeakMap<object, TokenStore>();

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly log: Logger,
  ) {}

  /** At start: a bad credential is logged; only the config's own tokens count. */
  accept(config: Config): TokenStore {
    try {
      this.check(config);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      this.log.error({ source: e.source, problems: e.problems }, "technician tokens credential invalid; only the config file's tokens are accepted");
      this.byConfig.set(config, new TokenStore(config.technician.tokens));
    }
    return this.of(config);
  }

  /** On reload: a bad credential throws its ConfigError (the reload is refused). */
  check(config: Config): void {
    this.byConfig.set(config, new TokenStore(loadTokenEntries(config.technician.tokens, this.env)));
  }

  /** The tokens of `config` (accepted or checked before). */
  of(config: Config): TokenStore {
    return this.byConfig.get(config) ?? this.accept(config);
  }
}
