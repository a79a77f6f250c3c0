/**
 * stationctl's technician commands, over the station's technician port (the same API the page uses).
 *
 * Exit codes: 0 ok; 1 failure (station not running, token refused, action refused, a self-test or
 * an opening that failed); 2 usage. The token comes from --token-file, $STATIONCTL_TOKEN or the
 * systemd credential `technician-token`; it is never printed and never put in a URL.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { hashToken, newToken } from '../../tokens/tokens.js';
import { DEFAULT_TECHNICIAN_PORT, DEFAULT_TECHNICIAN_SOCKET, tokenEntrySchema, tokenScopeSchema } from '../../config/technician.js';
import { checkPortOwner, PortNotHeldError, type PortCheck } from './port-owner.js';
import { PortClient, StationNotRunningError, StationRefusedError, TokenRefusedError, type Target } from './client.js';
import { followStream } from './follow.js';
import type { SelfTestReport } from '../../technician/selftest.js';
import type { EventView, StatusBody } from '../../technician/status.js';
import { formatEvent, formatLogLine, formatSelfTest, formatStatus, formatStreamEvent } from './format.js';

import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../errors.js';
import { UsageError, usageFailure } from '../args.js';
import { reloadedHow, type ReloadPlanKind } from '../../supervisor/reload-words.js';
import { CREDENTIALS_CHECK_NAME, readCredentialsCheck } from '../../service/credentials-check.js';

/** Name of the systemd credential stationctl reads its token from (LoadCredential= in a unit, or systemd-run). */
export const TOKEN_CREDENTIAL = 'technician-token';

export interface TechnicianCliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Read when `pin -` asks for the PIN on stdin. */
  readonly stdin?: AsyncIterable<Buffer | string>;
  /** Ends a follow (-f); stationctl.ts ties it to SIGINT. */
  readonly signal?: AbortSignal;
  /** Reconnect backoff of a follow (default FOLLOW_BACKOFF: 0.5 s doubling to 5 s). */
  readonly followBackoff?: { readonly firstMs: number; readonly maxMs: number };
}

type Options = NonNullable<ParseArgsConfig['options']>;
const GLOBAL: Options = {
  url: { type: 'string' },
  socket: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};
const COMMANDS = {
  status: { args: [0, 0], options: {} },
  logs: { args: [0, 0], options: { follow: { type: 'boolean', short: 'f' }, lines: { type: 'string', short: 'n' } } },
  events: { args: [0, 0], options: { follow: { type: 'boolean', short: 'f' }, lines: { type: 'string', short: 'n' } } },
  open: { args: [1, 1], options: {} },
  selftest: { args: [0, 0], options: {} },
  service: { args: [1, 1], options: {} },
  scan: { args: [1, 1], options: { rfid: { type: 'boolean' } } },
  pin: { args: [1, 1], options: {} },
  reload: { args: [0, 0], options: {} },
  token: { args: [1, 1], options: { scope: { type: 'string' }, name: { type: 'string' } } },
} as const satisfies Record<string, { args: readonly [number, number]; options: Options }>;
export type TechnicianCommand = keyof typeof COMMANDS;
export const TECHNICIAN_COMMANDS = Object.keys(COMMANDS) as TechnicianCommand[];

export const TECHNICIAN_USAGE = `technician commands (over the station's technician port):
  status                      mode, server contact, boxes, devices, recent events
  logs [-n N] [-f]            the last N log lines (default 100); -f follows
  events [-n N] [-f]          the last N protocol events with trace ids; -f follows the live stream
  open <box>                  open one box (number or id)                       [service]
  selftest                    pulse each lock and read its door (service mode)   [service]
  service on|off              service mode: the station reports DOWN "service"   [service]
  scan <code> [--rfid]        inject a scan (simulated hardware or service mode) [service]
  pin <digits>|-              inject a PIN ("-": read it from stdin, kept out of ps) [service]
  reload                      re-read the config file and restart the station    [service]
  token new [--scope metrics|read|service] [--name N]
                              make a token: prints it once, and the config entry with its hash

options:
  --socket PATH      the technician port's unix socket (or $STATIONCTL_SOCKET; default
                     ${DEFAULT_TECHNICIAN_SOCKET} when this user may use it: root)
  --url URL          the technician port over HTTP instead (or $STATIONCTL_URL; default
                     http://127.0.0.1:${DEFAULT_TECHNICIAN_PORT}, the port systemd holds). A port of this
                     machine gets the token only while root (systemd) or the station holds it
  --token-file FILE  the token; else $STATIONCTL_TOKEN, else $CREDENTIALS_DIRECTORY/${TOKEN_CREDENTIAL}
  --json             machine-readable output

exit codes: 0 ok, 1 failure (station not running, token refused, action refused), 2 usage
`;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** -n: a whole number up to `max` (what the station can show), else a usage error naming the limit. */
function lines(v: unknown, dflt: number, max: number, why: string): number {
  const s = str(v);
  if (s === undefined) return dflt;
  if (!/^\d+$/.test(s)) throw new UsageError(`-n takes a whole number from 0 to ${max}, got "${s}"`);
  if (Number(s) > max) throw new UsageError(`-n ${s} is more than ${max}, ${why}`);
  return Number(s);
}

/** Options every command takes, anywhere on the line; the string-valued ones consume the next word. */
const GLOBAL_VALUED = new Set(
  Object.entries(GLOBAL)
    .filter(([, o]) => o.type === 'string')
    .map(([k]) => `--${k}`),
);

/**
 * Where the command word is in `argv`: the first word that is neither a global option nor the value
 * of one (`stationctl --token-file F status` and `stationctl status --token-file F` are the same).
 * -1: none.
 */
export function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (GLOBAL_VALUED.has(a)) i++;
    else if (!a.startsWith('-') || a === '-') return i;
  }
  return -1;
}

function parse(argv: string[]): { command: TechnicianCommand; values: Record<string, unknown>; args: string[] } {
  const at = commandIndex(argv);
  const name = argv[at] as TechnicianCommand;
  const spec = COMMANDS[name];
  const parsed = parseArgs({
    args: [...argv.slice(0, at), ...argv.slice(at + 1)],
    options: { ...GLOBAL, ...spec.options },
    allowPositionals: true,
    strict: true,
  });
  const values = parsed.values as Record<string, unknown>;
  const positionals = parsed.positionals;
  const [min, max] = spec.args;
  if (values['help'] !== true && (positionals.length < min || positionals.length > max))
    throw new UsageError(`${name} takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${positionals.length}`);
  return { command: name, values, args: positionals };
}

function httpUrl(u: string): Target {
  if (!URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol)) throw new UsageError(`not an http URL: "${u}"`);
  if (new URL(u).search !== '') throw new UsageError('the URL must not carry a query (tokens never go in a URL)');
  return { kind: 'url', url: u };
}

/**
 * --socket, --url, $STATIONCTL_SOCKET, $STATIONCTL_URL, then the station's unix socket when this user
 * may use it (root, or the station's own user), else the port systemd holds on loopback.
 */
function target(values: Record<string, unknown>, env: TechnicianCliIo['env']): Target {
  const url = str(values['url']);
  const socket = str(values['socket']);
  if (url !== undefined && socket !== undefined) throw new UsageError('give --url or --socket, not both');
  if (socket !== undefined) return { kind: 'socket', path: socket };
  if (url !== undefined) return httpUrl(url);
  if (env['STATIONCTL_SOCKET']) return { kind: 'socket', path: env['STATIONCTL_SOCKET'] };
  if (env['STATIONCTL_URL']) return httpUrl(env['STATIONCTL_URL']);
  if (usable(DEFAULT_TECHNICIAN_SOCKET)) return { kind: 'socket', path: DEFAULT_TECHNICIAN_SOCKET };
  return httpUrl(`http://127.0.0.1:${DEFAULT_TECHNICIAN_PORT}`);
}

function usable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new UsageError(`cannot read the token file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** --token-file, $STATIONCTL_TOKEN, then the credential $CREDENTIALS_DIRECTORY/technician-token. */
function readToken(values: Record<string, unknown>, env: TechnicianCliIo['env']): string {
  const file = str(values['token-file']);
  if (file !== undefined) return readTokenFile(file);
  if (env['STATIONCTL_TOKEN']) return env['STATIONCTL_TOKEN'].trim();
  if (env['CREDENTIALS_DIRECTORY']) return readTokenFile(join(env['CREDENTIALS_DIRECTORY'], TOKEN_CREDENTIAL));
  throw new UsageError(`no technician token: use --token-file FILE, $STATIONCTL_TOKEN or the credential ${TOKEN_CREDENTIAL}`);
}

async function readStdin(io: TechnicianCliIo): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin ?? []) text += chunk.toString();
  return text.trim();
}

interface Ctx {
  readonly client: PortClient;
  readonly target: Target;
  readonly json: boolean;
  readonly io: TechnicianCliIo;
  readonly line: (text: string) => void;
}

async function follow(
  ctx: Ctx,
  path: (reconnecting: boolean) => string,
  onEvent: (event: string, data: unknown) => void,
  onReconnected?: () => string,
): Promise<number> {
  await followStream(
    {
      client: ctx.client,
      target: ctx.target,
      notice: (l) => void ctx.io.stderr.write(`${l}\n`),
      ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
      ...(ctx.io.followBackoff ? { backoff: ctx.io.followBackoff } : {}),
    },
    path,
    onEvent,
    onReconnected,
  );
  return EXIT_OK;
}

/** The last lines printed by `logs -f`, so a reconnect's backlog prints only what was not seen yet. */
class SeenLines {
  private readonly order: string[] = [];
  private readonly set = new Set<string>();
  constructor(private readonly capacity: number) {}
  /** True the first time a line is seen. */
  add(line: string): boolean {
    if (this.set.has(line)) return false;
    this.set.add(line);
    this.order.push(line);
    if (this.order.length > this.capacity) this.set.delete(this.order.shift() ?? '');
    return true;
  }
}

/** The most log lines a station keeps (technician.logLines at most): -n above it cannot be served. */
const MAX_LOG_LINES = 10_000;
/** The most events /api/events lists. */
const MAX_EVENTS = 100;

async function execute(command: TechnicianCommand, values: Record<string, unknown>, args: string[], ctx: Ctx): Promise<number> {
  const { client, json, line } = ctx;
  const arg = args[0] ?? '';
  const print = (value: unknown, readable: string): void => line(json ? JSON.stringify(value, null, 2) : readable);
  switch (command) {
    case 'status': {
      const s = await client.call<StatusBody>('GET', '/api/status');
      print(s, formatStatus(s));
      return EXIT_OK;
    }
    case 'logs': {
      const n = lines(values['lines'], 100, MAX_LOG_LINES, `the most log lines a station keeps (technician.logLines is at most ${MAX_LOG_LINES})`);
      const show = (l: string): void => line(json ? l : formatLogLine(l));
      if (values['follow'] === true) {
        // After a reconnect the whole backlog is asked for again; only lines not printed yet are shown.
        const seen = new SeenLines(MAX_LOG_LINES);
        return follow(
          ctx,
          (reconnecting) => `/api/logs/stream?lines=${reconnecting ? MAX_LOG_LINES : n}`,
          (_e, data) => {
            if (seen.add(String(data))) show(String(data));
          },
          () => 'lines logged meanwhile follow',
        );
      }
      const { lines: got } = await client.call<{ lines: string[] }>('GET', `/api/logs?lines=${n}`);
      got.forEach(show);
      return EXIT_OK;
    }
    case 'events': {
      const n = lines(values['lines'], 20, MAX_EVENTS, `the most events a station lists`);
      if (values['follow'] === true)
        return follow(
          ctx,
          () => '/api/events/stream',
          (event, data) => {
            if (event === 'status') return; // the picture at connect time: `status` shows it
            line(json ? JSON.stringify({ event, ...(data as object) }) : formatStreamEvent(event, data as Record<string, unknown>));
          },
          () => 'events while away are not shown (stationctl events lists the last ones)',
        );
      const { events } = await client.call<{ events: EventView[] }>('GET', `/api/events?limit=${n}`);
      print({ events }, events.map(formatEvent).join('\n'));
      return EXIT_OK;
    }
    case 'open': {
      const r = await client.call<{ box: number; opened: boolean }>('POST', `/api/boxes/${encodeURIComponent(arg)}/open`);
      print(r, r.opened ? `box ${r.box} opened` : `box ${r.box} pulsed, but its door did not report OPEN`);
      return r.opened ? EXIT_OK : EXIT_FAILURE;
    }
    case 'selftest': {
      const r = await client.call<SelfTestReport>('POST', '/api/selftest');
      print(r, formatSelfTest(r));
      return r.ok ? EXIT_OK : EXIT_FAILURE;
    }
    case 'service': {
      if (arg !== 'on' && arg !== 'off') throw new UsageError(`service takes on or off, got "${arg}"`);
      const r = await client.call<{ service: boolean }>('POST', '/api/service', { on: arg === 'on' });
      print(r, r.service ? 'service mode on: the station reports DOWN "service"' : 'service mode off: the station reports UP');
      return EXIT_OK;
    }
    case 'scan': {
      const r = await client.call<{ sent: boolean }>('POST', '/api/inject/scan', { value: arg, identifierType: values['rfid'] === true ? 'RFID' : 'BAR_CODE' });
      print(r, r.sent ? 'scan injected; /item-identify sent' : 'scan injected; nothing sent (see the station display)');
      return EXIT_OK;
    }
    case 'pin': {
      const pin = arg === '-' ? await readStdin(ctx.io) : arg;
      if (!/^[0-9]{1,6}$/.test(pin)) throw new UsageError('a PIN is 1 to 6 digits');
      const r = await client.call<{ sent: boolean }>('POST', '/api/inject/pin', { pin });
      print(r, r.sent ? 'PIN injected; /pin-enter sent' : 'PIN injected; nothing sent (see the station display)');
      return EXIT_OK;
    }
    case 'reload': {
      const r = await client.call<{ applied: ReloadPlanKind; restartNeeded: string[] }>('POST', '/api/reload');
      print(
        r,
        `config reloaded: ${reloadedHow(r.applied)}${r.restartNeeded.length > 0 ? ` (${r.restartNeeded.join(', ')} change only on a process restart)` : ''}`,
      );
      return EXIT_OK;
    }
    case 'token':
      throw new UsageError('token is handled before connecting');
  }
}

/** `token new`: local only; the token is printed once, the config gets only its hash. */
function tokenNew(values: Record<string, unknown>, args: string[], io: TechnicianCliIo): number {
  if (args[0] !== 'new') throw new UsageError(`token takes "new", got "${args[0] ?? ''}"`);
  const scope = tokenScopeSchema.safeParse(str(values['scope']) ?? 'read');
  if (!scope.success) throw new UsageError('--scope must be metrics, read or service');
  const name = str(values['name']) ?? `technician-${new Date().toISOString().slice(0, 10)}`;
  const named = tokenEntrySchema.shape.name.safeParse(name);
  if (!named.success) throw new UsageError(`--name ${named.error.issues[0]?.message ?? 'is invalid'}`);
  const token = newToken();
  const entry = { name, scope: scope.data, hash: hashToken(token) };
  if (values['json'] === true) io.stdout.write(`${JSON.stringify({ token, entry }, null, 2)}\n`);
  else
    io.stdout.write(
      `token (shown once; give it to ${name}, keep it out of tickets and chats):\n  ${token}\n\n` +
        `add this entry to "technician.tokens" in the station config (or to the technician-tokens credential), then reload:\n  ${JSON.stringify(entry)}\n`,
    );
  return EXIT_OK;
}

/** A refusal of the station as a technician reads it: what was refused, and the command to type next. */
function refusal(e: StationRefusedError): string {
  return `refused (${e.status}): ${refusalText(e)}`;
}

function refusalText(e: StationRefusedError): string {
  switch (e.code) {
    case 'forbidden':
      return `${e.message} (this token has the read scope only; a service token: stationctl token new --scope service)`;
    case 'not_in_service_mode':
      return 'the self-test pulses every lock: turn service mode on first with `stationctl service on` (and `stationctl service off` afterwards)';
    case 'not_allowed':
      return `${e.message}: \`stationctl service on\` first (and \`stationctl service off\` afterwards)`;
    case 'too_many_streams':
      return `${e.message} (technician.maxStreams): end another \`stationctl logs -f\` / \`events -f\`, or close a technician page`;
    case 'unknown_box':
      return `${e.message}: \`stationctl status\` lists the boxes`;
    case 'reloading':
      return `${e.message} (\`stationctl status\` answers once it is back)`;
    default: {
      const problems = Array.isArray(e.body['problems'])
        ? (e.body['problems'] as { path: string; message: string }[]).map((p) => `\n  ${p.path || '(root)'}: ${p.message}`).join('')
        : '';
      return `${e.message}${problems}`;
    }
  }
}

/**
 * Why the station does not run, when its credential check said so before the last start: the
 * credentials that could not be decrypted on this board, from the check's metric file, and whether
 * it was the TPM's dictionary-attack lockout (which passes by itself) or the card's; null when the
 * file is absent or names none.
 */
export function credentialProblem(env: Readonly<Record<string, string | undefined>>): string | null {
  const check = readCredentialsCheck(join(env['PICKUP_METRICS_DIR'] ?? '/run/pickup-station-metrics', CREDENTIALS_CHECK_NAME));
  const failed = check?.undecryptable ?? [];
  if (check === null || failed.length === 0) return null;
  if (check.tpmLockout)
    return (
      `the station does not start: the TPM refuses its credential${failed.length > 1 ? 's' : ''} ${failed.join(', ')} for now ` +
      `(dictionary-attack lockout, counted from power cuts); every lock is OFF. It recovers by itself and the station is started ` +
      `again until then (pickup-station-credentials-retry.timer); nothing to commission. Why: journalctl --namespace=+pickup-station -u pickup-station -n 20`
    );
  return (
    `the station does not start: its credential${failed.length > 1 ? 's' : ''} ${failed.join(', ')} cannot be decrypted on this board ` +
    `(sealed to another TPM or host key, or damaged); every lock is OFF. Why: journalctl --namespace=+pickup-station -u pickup-station -n 20; ` +
    `then commission the station again (install.sh --password-file, docs/operating.md)`
  );
}

/** Where the port's owner is read (tests give a /proc/net and a passwd of their own). */
function portCheckOf(env: TechnicianCliIo['env']): PortCheck {
  return {
    ...(env['STATIONCTL_PROC_NET'] ? { procNet: env['STATIONCTL_PROC_NET'] } : {}),
    ...(env['STATIONCTL_PASSWD'] ? { passwd: env['STATIONCTL_PASSWD'] } : {}),
  };
}

/** Entry point for one technician command (`argv[0]` is the command). Never throws. */
export async function runTechnicianCli(argv: string[], io: TechnicianCliIo): Promise<number> {
  const fail = (code: number, message: string): number => {
    io.stderr.write(`stationctl: ${message}\n`);
    return code;
  };
  try {
    const { command, values, args } = parse(argv);
    if (values['help'] === true) {
      io.stdout.write(TECHNICIAN_USAGE);
      return EXIT_OK;
    }
    if (command === 'token') return tokenNew(values, args, io);
    const to = target(values, io.env);
    const ctx: Ctx = {
      client: new PortClient(to, readToken(values, io.env), (url) => checkPortOwner(url, portCheckOf(io.env))),
      target: to,
      json: values['json'] === true,
      io,
      line: (text) => void io.stdout.write(`${text}\n`),
    };
    return await execute(command, values, args, ctx);
  } catch (e) {
    const usage = usageFailure(e, '(see stationctl --help)', (text) => void fail(EXIT_USAGE, text));
    if (usage !== null) return usage;
    if (e instanceof StationNotRunningError) {
      const credentials = credentialProblem(io.env);
      if (credentials !== null) return fail(EXIT_FAILURE, `${e.message}: ${credentials}`);
      return fail(EXIT_FAILURE, `${e.message}: is the service up? (systemctl status pickup-station; --url or --socket if it listens elsewhere)`);
    }
    if (e instanceof PortNotHeldError) return fail(EXIT_FAILURE, e.message);
    if (e instanceof TokenRefusedError)
      return fail(
        EXIT_FAILURE,
        'token refused (401): check --token-file / $STATIONCTL_TOKEN (a new one: stationctl token new, its entry in technician.tokens, then stationctl reload)',
      );
    if (e instanceof StationRefusedError) return fail(EXIT_FAILURE, refusal(e));
    const code = e instanceof Error && 'code' in e ? String(e.code) : '';
    if (code === 'ECONNRESET' || code === 'EPIPE' || (e instanceof Error && e.message === 'socket hang up'))
      return fail(
        EXIT_FAILURE,
        `the station closed the connection (${e instanceof Error ? e.message : code}): it may be restarting; try again in a moment (stationctl status)`,
      );
    return fail(EXIT_FAILURE, `unexpected error: ${e instanceof Error ? e.message : String(e)}`);
  }
}
