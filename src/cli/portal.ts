/**
 * `stationctl portal …`: commissioning commands over the library portal API.
 *
 * Exit codes: 0 ok, 1 failure (portal error, not found), 2 usage, 78 config (EX_CONFIG: bad or
 * missing portal section or credentials). Readable output by default, `--json` for scripts.
 * Nothing secret is printed: no client secret, no password, no access token.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { PortalCredentialsError } from '../portal/config.js';
import { PortalError, PortalTokenError } from '../portal/errors.js';
import type { PortalLogger } from '../portal/http.js';
import { SEARCH_KINDS, type SearchKind } from '../portal/schemas.js';
import * as cmd from './portal/commands.js';
import { createClient, DEFAULT_CONFIG_FILE, loadPortalConfig } from './portal/setup.js';

import { intOption, UsageError, usageFailure } from './args.js';

export interface PortalCliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL: Options = {
  config: { type: 'string' },
  'portal-url': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
};

const COMMANDS = {
  login: { args: '', options: {} },
  search: {
    args: '<kind>',
    options: {
      q: { type: 'string' },
      name: { type: 'string' },
      fond: { type: 'string' },
      'page-size': { type: 'string' },
      page: { type: 'string' },
      all: { type: 'boolean' },
    },
  },
  newest: { args: '', options: {} },
  item: { args: '<barcode>', options: {} },
  'create-test-record': { args: '', options: { title: { type: 'string' }, fond: { type: 'string' }, department: { type: 'string' } } },
  'sync-user': { args: '<externalId>', options: { fetch: { type: 'boolean' } } },
} as const satisfies Record<string, { args: string; options: Options }>;
type CommandName = keyof typeof COMMANDS;

export const PORTAL_USAGE = `usage: stationctl portal <command> [options]

commands:
  login                                  check the credentials; print scopes and token expiry
  search <kind> [--q TEXT] [--name TEXT] [--fond N] [--page-size N] [--page N] [--all]
                                         kind: ${SEARCH_KINDS.join(', ')}
  newest                                 newest documents
  item <barcode>                         is this label known to the catalogue? (exit 0 yes, 1 no)
  create-test-record --title T --fond N --department N
                                         create a catalogued document visible at the department
  sync-user <externalId> [--fetch]       sync a user from the external system (--fetch: only show)

options:
  --config FILE      station config (default ${DEFAULT_CONFIG_FILE}); only its "portal" section is read
  --portal-url URL   override portal.baseUrl
  --json             machine-readable output
  -v, --verbose      log each request (method, path, status, duration) to stderr
  -h, --help         this text

exit codes: 0 ok, 1 failure or not found, 2 usage, 78 config or credentials
`;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

const int = (name: string, v: unknown, min: number): number | undefined => intOption(v, name, min);

function required<T>(name: string, v: T | undefined): T {
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

/** Parse: a first pass with every option known finds the command; the second pass is strict per command. */
function parse(argv: string[]): { command: CommandName | undefined; values: Record<string, unknown>; positionals: string[] } {
  const everything: Options = { ...GLOBAL };
  for (const c of Object.values(COMMANDS)) Object.assign(everything, c.options);
  const first = parseArgs({ args: argv, options: everything, allowPositionals: true, strict: true });
  const name = first.positionals[0];
  // --help wins over everything else on the line, even a malformed command.
  if (name === undefined || first.values['help'] === true) return { command: undefined, values: first.values, positionals: [] };
  if (!(name in COMMANDS)) throw new UsageError(`unknown command "${name}"`);
  const command = name as CommandName;
  const { values, positionals } = parseArgs({ args: argv, options: { ...GLOBAL, ...COMMANDS[command].options }, allowPositionals: true, strict: true });
  const expected = COMMANDS[command].args === '' ? 0 : 1;
  if (positionals.length - 1 !== expected)
    throw new UsageError(`${command} takes ${expected === 0 ? 'no arguments' : `one argument ${COMMANDS[command].args}`}, got ${positionals.length - 1}`);
  return { command, values, positionals: positionals.slice(1) };
}

/** Logs request lines to stderr for --verbose; the http layer passes method, path, status, duration only. */
function stderrLogger(io: PortalCliIo): PortalLogger {
  return {
    debug(obj) {
      const status = obj['status'] ?? obj['error'];
      io.stderr.write(`${String(obj['method'])} ${String(obj['path'])} -> ${String(status)} (${String(obj['durationMs'])} ms)\n`);
    },
  };
}

async function run(command: CommandName, values: Record<string, unknown>, positionals: string[], io: PortalCliIo): Promise<number> {
  const json = values['json'] === true;
  const out: cmd.Output = {
    json,
    line: (text) => void io.stdout.write(`${text}\n`),
    data: (value) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
  const portalUrl = str(values['portal-url']);
  if (portalUrl !== undefined && !URL.canParse(portalUrl)) throw new UsageError(`--portal-url is not a URL: "${portalUrl}"`);
  // Validate all arguments before touching config or network.
  const arg = positionals[0] ?? '';
  let action: (ctx: cmd.CommandContext) => Promise<number>;
  switch (command) {
    case 'login':
      action = cmd.login;
      break;
    case 'newest':
      action = cmd.newest;
      break;
    case 'search': {
      if (!(SEARCH_KINDS as readonly string[]).includes(arg)) throw new UsageError(`search kind must be one of ${SEARCH_KINDS.join(', ')}, got "${arg}"`);
      const args: cmd.SearchArgs = {
        kind: arg as SearchKind,
        q: str(values['q']),
        name: str(values['name']),
        fond: int('fond', values['fond'], 0),
        pageSize: int('page-size', values['page-size'], 1),
        pageNumber: int('page', values['page'], 1),
        all: values['all'] === true,
      };
      action = (ctx) => cmd.searchCommand(ctx, args);
      break;
    }
    case 'item':
      if (arg.trim() === '') throw new UsageError('item needs a non-empty barcode');
      action = (ctx) => cmd.item(ctx, arg);
      break;
    case 'create-test-record': {
      const title = required('title', str(values['title']));
      if (title.trim() === '') throw new UsageError('--title must not be empty');
      const args: cmd.TestRecordArgs = {
        title,
        fond: required('fond', int('fond', values['fond'], 0)),
        department: required('department', int('department', values['department'], 0)),
      };
      action = (ctx) => cmd.createTestRecord(ctx, args);
      break;
    }
    case 'sync-user':
      if (arg === '') throw new UsageError('sync-user needs a non-empty external id');
      action = (ctx) => cmd.syncUserCommand(ctx, arg, values['fetch'] === true);
      break;
  }
  const { config } = loadPortalConfig({ file: str(values['config']), portalUrl });
  const client = createClient(config, io.env, values['verbose'] === true ? stderrLogger(io) : undefined);
  return action({ client, config, out });
}

/**
 * Entry point of `stationctl portal`: `argv` is what follows `portal`. Never throws; every
 * outcome is an exit code with a message on stderr.
 */
export async function runPortalCli(argv: string[], io: PortalCliIo): Promise<number> {
  const fail = (code: number, message: string): number => {
    io.stderr.write(`stationctl portal: ${message}\n`);
    return code;
  };
  try {
    const { command, values, positionals } = parse(argv);
    if (values['help'] === true) {
      io.stdout.write(PORTAL_USAGE);
      return EXIT_OK;
    }
    if (command === undefined) {
      io.stderr.write(PORTAL_USAGE);
      return EXIT_USAGE;
    }
    return await run(command, values, positionals, io);
  } catch (e) {
    const usage = usageFailure(e, '(see stationctl portal --help)', (text) => void fail(EXIT_USAGE, text));
    if (usage !== null) return usage;
    if (e instanceof ConfigError || e instanceof PortalCredentialsError) return fail(EXIT_CONFIG, e.message);
    if (e instanceof PortalTokenError) return fail(EXIT_FAILURE, `the portal refused the credentials: ${e.message}`);
    if (e instanceof PortalError || e instanceof cmd.TestRecordStepError) return fail(EXIT_FAILURE, e.message);
    if (e instanceof RangeError) return fail(EXIT_USAGE, e.message);
    return fail(EXIT_FAILURE, `unexpected error: ${e instanceof Error ? e.message : String(e)}`);
  }
}
