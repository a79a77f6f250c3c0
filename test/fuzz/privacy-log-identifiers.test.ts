/**
 * Property (record 0160, docs/privacy.md): a patron's identifier — a barcode, a Codabar label, a
 * card's or a tag's UID in hex (bare or as bytes with separators), a card number in decimal, an
 * item number, a PIN — driven through every log call site that can carry one, in any text around
 * it, is never found in full in what is written:
 *
 * - the logger itself: the message, printf values, string fields at any depth, identifier fields at
 *   any depth, an Error as the object, as `err`, with a cause, a child logger's bindings;
 * - the core: a scan of it (`identifier scanned`), an RFID tag carrying it as its item number, an
 *   unreadable tag whose decoder detail quotes it — each log effect carried out as the runtime
 *   does (`log[level](data, msg)`);
 * - the protocol client's parse of a malformed command quoting it (its reason is logged and shown);
 * - the portal client's errors whose answer body names it (HTTP error, not JSON), as a log line and
 *   as the message `stationctl` prints;
 * - the crash handler (src/lifecycle.ts), with an uncaught error whose message names it;
 * - the reference server over HTTP: a deposit it does not know, a /state whose errorMessage names
 *   it — and with `logIdentifiers` the same request does log it, so the search reads the right text.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createLogger, IDENTIFIER_KEYS, type Logger } from '../../src/log.js';
import { serveUntilSignal } from '../../src/lifecycle.js';
import { PortalHttpError, PortalNotJsonError } from '../../src/portal/errors.js';
import { parseServerResponse } from '../../src/protocol/parse.js';
import type { RfidTag } from '../../src/devices/types.js';
import type { CoreConfig, Effect, Input } from '../../src/station/core-types.js';
import { ReferenceServer } from '../../src/reference-server/server.js';
import { DEMO_STATION, seedData } from '../../src/reference-server/seed.js';
import { coreConfig, idleStepper } from '../support/core-driver.js';
import { checkAsync, check, FUZZ_TIMEOUT_MS, must } from '../support/fuzz-runs.js';
import { SimStationClient } from '../support/sim-client.js';

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9A-F]{${n}}$`));

/** Identifiers as the station knows them. */
const identifier: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[0-9]{8,20}$/), // a barcode, an item number
  fc.stringMatching(/^[A-D][0-9]{8,16}[A-D]$/), // a Codabar label with its start and stop letters
  fc.stringMatching(/^[A-Z]{0,3}[0-9]{6,16}$/), // an item number with a prefix
  fc.stringMatching(/^[0-9]{10}$/), // a card's UID as a wedge reader types it in decimal
  fc.stringMatching(/^[0-9]{6}$/), // a PIN
  fc.constantFrom(8, 14, 20).chain((n) =>
    fc.oneof(
      hex(n),
      hex(n).map((s) => s.toLowerCase()),
    ),
  ), // a card's UID in hex
  hex(14).map((s) => `E0${s}`), // a library tag's UID
  fc.array(hex(2), { minLength: 4, maxLength: 10 }).chain((bytes) => fc.constantFrom(':', ' ', '-').map((sep) => bytes.join(sep))), // UID bytes
);

/** What stands beside an identifier in a message: never a letter or a digit (those would make it another word). */
const separator = fc.constantFrom(' ', '"', "'", ':', ': ', ', ', '=', '/', '(', ')', '[', ']', '{', '}', '\n', '\t', ';', ' - ', '#');
const words = fc.array(fc.constantFrom('item', 'tag', 'card', 'not found', 'decoder', 'ISO 28560-3', 'HTTP 404', 'box 3', 'no deposit for', 'BAR_CODE', ''), {
  maxLength: 4,
});
/** A text naming the identifier somewhere in it. */
const around = (id: string): fc.Arbitrary<string> =>
  fc.tuple(words, separator, separator, words).map(([before, s1, s2, after]) => `${before.join(' ')}${s1}${id}${s2}${after.join(' ')}`);
const withText = identifier.chain((id) => around(id).map((text) => ({ id, text })));

/** A logger at trace level writing into a list, as the daemon's writes to the journal. */
function capture(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  return { log: createLogger('trace', { write: (s: string) => void lines.push(s) }), text: () => lines.join('') };
}

const noLeak = (id: string, output: string, where: string): void => must(!output.includes(id), () => `${where}: ${JSON.stringify(id)} in full in:\n${output}`);

/** A log effect carried out as the runtime's effect carrier does (src/station/effects.ts). */
function carry(log: Logger, fx: readonly Effect[]): void {
  for (const e of fx) if (e.type === 'log') log[e.level](e.data ?? {}, e.msg);
}

const RFID_CONFIG: CoreConfig = {
  ...coreConfig(),
  rfid: { sets: 'require-all', security: { kind: 'off' }, securityWindowMs: 30_000, securityRetryMs: 1_000 },
};

describe('no identifier in full in any log line', () => {
  it(
    'the logger: message, printf, fields at any depth, identifier fields, errors, bindings',
    () => {
      const key = fc.constantFrom('detail', 'reason', 'error', 'notes', 'problem', 'body', 'x');
      check(
        'privacy: the logger masks every text',
        20_000,
        fc.property(withText, key, fc.constantFrom(...IDENTIFIER_KEYS), fc.integer({ min: 0, max: 8 }), ({ id, text }, field, idKey, depth) => {
          const { log, text: out } = capture();
          let nested: unknown = { [field]: text, list: [text, { [idKey]: id }] };
          for (let i = 0; i < depth; i++) nested = { [`level${i}`]: nested };
          log.info(text);
          log.info('value %s', text);
          log.warn({ nested }, 'nested');
          log.warn({ [idKey]: id, [field]: text }, text);
          const e = new Error(text, { cause: new TypeError(text) });
          log.error(e);
          log.error({ err: e }, 'failed');
          log.child({ [field]: text }).info({ [idKey]: [id, id] }, 'child');
          noLeak(id, out(), 'logger');
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "the core's log effects: a scan, an RFID item, an unreadable tag's detail",
    () => {
      check(
        'privacy: the core logs identifiers masked',
        10_000,
        fc.property(withText, fc.constantFrom('BAR_CODE' as const, 'RFID' as const), hex(14), ({ id, text }, identifierType, uidTail) => {
          const { log, text: out } = capture();
          const scan = idleStepper();
          carry(log, scan.feed({ type: 'scan', value: id, identifierType, at: 50_000 }));
          const uid = `E0${uidTail}`;
          const tags: RfidTag[] = [
            { uid, afi: 0x07, data: { kind: 'item', model: 'iso28560-3', itemId: id, set: null, owner: null, mediaFormat: null } },
            { uid: id, afi: 0, data: { kind: 'unreadable', problem: 'damaged', detail: text } },
          ];
          const field: Input = { type: 'rfid-field', reader: 'R', send: 'item-id', tags, at: 60_000 };
          carry(log, idleStepper(RFID_CONFIG).feed(field));
          noLeak(id, out(), 'core');
          noLeak(uid, out(), 'core (the tag UID)');
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "a server's malformed command and the portal's errors",
    () => {
      check(
        'privacy: answer bodies masked before they are logged',
        10_000,
        fc.property(withText, ({ id, text }) => {
          const { log, text: out } = capture();
          const answer = parseServerResponse(200, 'application/json', JSON.stringify({ type: 'box-open', boxes: [id], displayMessages: [text] }));
          if (answer.kind === 'invalid') log.warn({ outcome: `invalid: ${answer.reason}` }, `event answered invalid: ${answer.reason}`);
          const errors = [
            new PortalHttpError('GET', '/items', 404, text),
            new PortalHttpError('GET', '/users', 500, { message: text, firstName: id, card: { number: id } }),
            new PortalNotJsonError('GET', '/items', 200, 'text/html', `<html>${text}</html>`),
          ];
          for (const e of errors) {
            log.error({ error: e.message, body: e instanceof PortalHttpError ? e.body : null }, 'portal request failed');
            // What stationctl prints is the message itself.
            noLeak(id, e.message, `${e.name}'s message`);
          }
          noLeak(id, out(), 'answers');
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the crash handler',
    async () => {
      await checkAsync(
        'privacy: the crash handler masks',
        2_000,
        fc.asyncProperty(withText, async ({ id, text }) => {
          const { log, text: out } = capture();
          const before = new Set(process.listeners('uncaughtException'));
          const stopped = serveUntilSignal(
            { drain: () => Promise.resolve('drained'), stop: () => Promise.resolve() },
            log,
            {},
            { drainLimitMs: 0, stopLimitMs: 10_000 },
          );
          const handler = process.listeners('uncaughtException').find((l) => !before.has(l));
          must(handler !== undefined, () => 'the crash handler was not installed');
          // Called as Node calls it, without raising a real uncaught exception in the test process.
          (handler as (e: Error) => void)(new Error(text));
          await stopped;
          noLeak(id, out(), 'crash handler');
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  describe('the reference server, over HTTP', () => {
    const masked: string[] = [];
    const full: string[] = [];
    const lineLogger = (into: string[]) => ({
      info: (obj: object, msg?: string) => void into.push(`${msg ?? ''} ${JSON.stringify(obj)}`),
      warn: (obj: object, msg?: string) => void into.push(`${msg ?? ''} ${JSON.stringify(obj)}`),
    });
    const servers: ReferenceServer[] = [];
    let quiet: SimStationClient;
    let loud: SimStationClient;
    beforeAll(async () => {
      const start = async (logIdentifiers: boolean, into: string[]) => {
        const server = new ReferenceServer({ ...seedData([DEMO_STATION]), logger: lineLogger(into), logIdentifiers });
        servers.push(server);
        return new SimStationClient(await server.start(), DEMO_STATION);
      };
      quiet = await start(false, masked);
      loud = await start(true, full);
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it(
      'masks by default, and logs in full only with logIdentifiers',
      async () => {
        await checkAsync(
          'privacy: the reference server masks by default',
          2_000,
          fc.asyncProperty(withText, async ({ id, text }) => {
            masked.length = 0;
            full.length = 0;
            for (const client of [quiet, loud]) {
              await client.identify(id, 'BAR_CODE');
              await client.state([], { st: 'DOWN', errorMessage: text });
            }
            noLeak(id, masked.join('\n'), 'reference server');
            must(full.join('\n').includes(id), () => `with logIdentifiers the lines name ${JSON.stringify(id)}:\n${full.join('\n')}`);
          }),
        );
      },
      FUZZ_TIMEOUT_MS,
    );
  });
});
