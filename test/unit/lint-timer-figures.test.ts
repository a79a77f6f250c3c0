/**
 * "Every timeout and interval is config" (ARCHITECTURE.md, the rules of the house), kept by a test:
 * every figure of time written into src/ and handed to a timer — a numeric literal, or a constant
 * made of literals, passed to setTimeout, setInterval, sleep, a bounded wait, a socket's time-out
 * or a Backoff's delays — is either read from the config or one of the exceptions below, each with
 * why it is not an operator's to change. The figures are found in the syntax tree (TypeScript's
 * parser), following constants within a file and across its relative imports; a figure only scales
 * a configured time (`answerTimeoutMs * 2`) or floors a computed one (`Math.max(0, …)`) without
 * being one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { layerOf, sourceFiles } from '../../eslint.config.js';
import { PROJECT_ROOT as ROOT } from '../support/project-files.js';

/**
 * The fixed figures src/ hands to timers, by file and the figure's text as written, with why each
 * is not config. ARCHITECTURE.md names every file here (checked below).
 */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  'src/devices/types.ts: HARD_MAX_PULSE_MS = 3000': "the hardware's safety ceiling for a lock pulse: what no config may pass",
  'src/devices/types.ts: MAX_BEEP_MS = 5_000': "the hardware's ceiling for one beep, as above",
  'src/devices/gpio/cdev-helper.ts: START_TIMEOUT_MS = 10_000':
    "how long the GPIO tool may take to request its line: a property of the tool and the board (QEMU TCG's slowness included)",
  'src/devices/gpio/cdev-helper.ts: STOP_TIMEOUT_MS = 2_000': 'how long the GPIO tool may take to exit once told: as above',
  'src/devices/gpio/cdev.ts: initialMs = 100':
    "safe-state's pace for a line a dying pulse still holds: it runs from the board profile alone, before any config is trusted",
  'src/devices/gpio/cdev.ts: maxMs = 100': 'the same pace (a fixed one: factor 1)',
  'src/devices/gpio/cdev.ts: busyTimeoutMs = HARD_MAX_PULSE_MS + 2000':
    "safe-state's bound for that line: the longest pulse that can still hold it, and the tool's exit",
  'src/devices/gpio/safe-state-cli.ts: setInterval(…60_000…)':
    'an interval that only keeps the event loop alive until the locks are OFF: its length means nothing',
  'src/edge/http.ts: connectionsCheckingInterval = Math.max(50, Math.round(l.headersTimeoutMs / 5))':
    "Node's sweep for its head and request time-outs: a fifth of the configured head time-out, at least 50 ms so that no config makes it spin",
  'src/portal/http.ts: timeout = { request: options.timeoutMs ?? 30_000 }':
    "the portal client's default as a library (its tests); stationctl passes the config's portal.timeoutMs",
  'src/release-info.ts: DAY_MS = 86_400_000': 'a unit (one day, for the support period in days), not a time-out',
  'src/station/core/rfid-view.ts: securityWindowMs = 30_000':
    'the core without an `rfid` section (no reader): the security bit is off, so this window never runs',
  'src/station/core/rfid-view.ts: securityRetryMs = 1_000': 'as above',
  'src/service/health.ts: marginMs = 60_000':
    "the watchdog's staleness margin over the sum of the configured times it adds up (power readings, a slow board, GC): a safety margin, not a time an operator tunes",
  'src/service/index.ts: LOOP_PROBE_MS = 1_000':
    "the event-loop probe behind the watchdog samples the loop every second (or at the watchdog's half period if shorter)",
  'src/service/index.ts: LOOP_MAX_LAG_MS = 10_000':
    'a turn of the event loop late by more than this is unhealthy (or the half period if shorter): a property of the process, not of the station',
  'src/service/index.ts: timeoutMs = 3_000': "how long the exit waits for systemd's last messages (STOPPING=1) to go out: inside systemd's own stop time-out",
  'src/service/watchdog.ts: retryMs = opts.retryMs ?? Math.max(1_000, intervalMs / 10)':
    "a lost watchdog ping's next attempt: a tenth of the interval systemd's WatchdogSec= sets, at least 1 s so that a tool failing at once is not run in a loop",
  'src/service/notify.ts: timeoutMs = 10_000': 'the bound of one systemd-notify command: a local tool talking to PID 1 answers at once unless it hangs',
  'src/service/reload-command.ts: POLL_MS = 50': "the reload command's look at reload.json: another process's file, which no event of this process announces",
  "src/service/reload-command.ts: timeoutMs = values['timeout-ms'] === undefined ? 600_000 : Number(values['timeout-ms'])":
    "the reload command's default --timeout-ms: the unit passes its own, and systemd's TimeoutStartSec= bounds the command anyway",
};

type Consts = Map<string, ts.Expression>;

const parsed = new Map<string, ts.SourceFile>();
function sourceOf(file: string): ts.SourceFile {
  let sf = parsed.get(file);
  if (sf === undefined) {
    sf = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    parsed.set(file, sf);
  }
  return sf;
}

/** A wrapper that does not change the value: parentheses, `as`, `satisfies`, `!`. */
function strip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e))
    e = e.expression;
  return e;
}

const constsCache = new Map<string, Consts>();
/** The file's const declarations by name, and the constants it imports from relative modules. */
function constsOf(file: string): Consts {
  const cached = constsCache.get(file);
  if (cached) return cached;
  const consts: Consts = new Map();
  constsCache.set(file, consts);
  const sf = sourceOf(file);
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclarationList(n) && (n.flags & ts.NodeFlags.Const) !== 0)
      for (const d of n.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith('.')) continue;
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const from = relative(ROOT, join(ROOT, dirname(file), st.moduleSpecifier.text.replace(/\.js$/, '.ts')));
    let theirs: Consts;
    try {
      theirs = constsOf(from);
    } catch {
      continue;
    }
    for (const el of bindings.elements) {
      const value = theirs.get((el.propertyName ?? el.name).text);
      if (value && !consts.has(el.name.text)) consts.set(el.name.text, value);
    }
  }
  return consts;
}

/** What a name or a property of a constant object stands for, if it is a constant. */
function resolve(e: ts.Expression, consts: Consts, seen: Set<string>): ts.Expression | undefined {
  if (ts.isIdentifier(e)) {
    if (seen.has(e.text)) return undefined;
    seen.add(e.text);
    return consts.get(e.text);
  }
  if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
    const obj = resolve(e.expression, consts, seen);
    if (!obj) return undefined;
    const lit = strip(obj);
    if (!ts.isObjectLiteralExpression(lit)) return undefined;
    const prop = lit.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === e.name.text);
    return prop?.initializer;
  }
  return undefined;
}

/** Whether `e` is a number made only of literals and constants (any value, 0 included). */
function constant(e: ts.Expression, consts: Consts, seen = new Set<string>()): boolean {
  e = strip(e);
  if (ts.isNumericLiteral(e)) return true;
  if (ts.isPrefixUnaryExpression(e)) return constant(e.operand, consts, seen);
  if (ts.isBinaryExpression(e)) return constant(e.left, consts, seen) && constant(e.right, consts, seen);
  const r = resolve(e, consts, seen);
  return r !== undefined && constant(r, consts, seen);
}

/** A name that says it is a time: `…Ms`, `…_MS`, `timeout…`, `…Interval`, `delay`. */
const TIME_NAME = /^ms$|[a-z]Ms$|(^|_)MS$|^timeout|Timeout|TIMEOUT|^interval|Interval|INTERVAL|^delay|Delay|DELAY/;

/**
 * Whether `e` carries a fixed figure of time: a non-zero constant term, not only a factor of a
 * configured time. A constant whose name says it is a time is reported where it is declared, so
 * it does not count again where it is used.
 */
function carriesFigure(e: ts.Expression, consts: Consts, seen = new Set<string>()): boolean {
  e = strip(e);
  if (ts.isNumericLiteral(e)) return Number(e.text.replaceAll('_', '')) !== 0;
  if (ts.isPrefixUnaryExpression(e)) return carriesFigure(e.operand, consts, seen);
  if (ts.isConditionalExpression(e)) return carriesFigure(e.whenTrue, consts, new Set(seen)) || carriesFigure(e.whenFalse, consts, new Set(seen));
  if (ts.isObjectLiteralExpression(e)) return e.properties.some((p) => ts.isPropertyAssignment(p) && carriesFigure(p.initializer, consts, new Set(seen)));
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.kind;
    if (op === ts.SyntaxKind.PlusToken || op === ts.SyntaxKind.MinusToken || op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken)
      return carriesFigure(e.left, consts, new Set(seen)) || carriesFigure(e.right, consts, new Set(seen));
    // A product or quotient is a fixed time only when both sides are constants (60 * 1000); with a
    // configured side it scales that time, and its figures are factors.
    return (
      constant(e.left, consts) && constant(e.right, consts) && carriesFigure(e.left, consts, new Set(seen)) && carriesFigure(e.right, consts, new Set(seen))
    );
  }
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.expression.getText() === 'Math')
    return e.arguments.some((a) => carriesFigure(a, consts, new Set(seen)));
  if (ts.isIdentifier(e) && TIME_NAME.test(e.text) && consts.has(e.text)) return false;
  const r = resolve(e, consts, seen);
  return r !== undefined && carriesFigure(r, consts, seen);
}

/** The argument of a call that is a time, by the callee's name. */
function timeArgument(call: ts.CallExpression | ts.NewExpression): ts.Expression | undefined {
  // A Backoff's delays (initialMs, maxMs) and a wait's limitMs are named times, found as such.
  const callee = call.expression;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  if (ts.isNewExpression(call)) return undefined;
  const args = call.arguments;
  switch (name) {
    case 'setTimeout':
      // A socket's or server's own time-out takes the time first; the global timer second.
      return ts.isPropertyAccessExpression(callee) && callee.expression.getText() !== 'globalThis' ? args[0] : args[1];
    case 'setInterval':
    case 'settlesWithin':
      return args[1];
    case 'sleep':
      return args[0];
    case 'timeout':
      return ts.isPropertyAccessExpression(callee) && callee.expression.getText() === 'AbortSignal' ? args[0] : undefined;
    case 'untilState':
      return args[2];
    case 'until':
      return args[3];
    default:
      return undefined;
  }
}

/**
 * Every fixed figure of time in `file`: handed to a timer ("file: setTimeout(…, figure)"), or
 * bound to a name that says it is a time — a constant, a parameter's or a destructured default,
 * an object's property ("file: name = figure").
 */
function figuresIn(file: string): string[] {
  const sf = sourceOf(file);
  const consts = constsOf(file);
  const out: string[] = [];
  const named = (name: ts.Node, value: ts.Expression | undefined): void => {
    if (value === undefined || !(ts.isIdentifier(name) || ts.isStringLiteral(name)) || !TIME_NAME.test(name.text)) return;
    // A named constant's own value is asked through what it is made of, not through itself.
    if (carriesFigure(value, consts, new Set([name.text]))) out.push(`${file}: ${name.text} = ${value.getText()}`);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const arg = timeArgument(n);
      const callee = n.expression.getText();
      if (arg && carriesFigure(arg, consts)) out.push(`${file}: ${ts.isNewExpression(n) ? 'new ' : ''}${callee}(…${arg.getText()}…)`);
    }
    if (ts.isVariableDeclaration(n) && ts.isVariableDeclarationList(n.parent) && (n.parent.flags & ts.NodeFlags.Const) !== 0) named(n.name, n.initializer);
    if (ts.isParameter(n)) named(n.name, n.initializer);
    if (ts.isBindingElement(n)) named(n.propertyName ?? n.name, n.initializer);
    if (ts.isPropertyAssignment(n)) named(n.name, n.initializer);
    if (ts.isPropertyDeclaration(n)) named(n.name, n.initializer);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * Not the station's: the config's own files hold the defaults (that is where figures belong), and
 * the programs beside the station — the load generator, the demo, the reference server, stationctl
 * — take their figures from their own command lines and defaults.
 */
const NOT_THE_STATION = ['src/fleet/', 'src/demo/', 'src/reference-server/', 'src/cli/'];
const checked = sourceFiles(ROOT).filter((f) => layerOf(f) !== 'config' && !NOT_THE_STATION.some((d) => f.startsWith(d)));
const found = checked.flatMap(figuresIn);

describe('every figure of time handed to a timer in src/ is config, or a listed exception', () => {
  it('finds the figures it is meant to find: a literal handed to a timer, named constants, defaults, an object of options', () => {
    expect(found).toEqual(
      expect.arrayContaining([
        'src/devices/gpio/safe-state-cli.ts: setInterval(…60_000…)',
        'src/service/reload-command.ts: POLL_MS = 50',
        'src/service/notify.ts: timeoutMs = 10_000',
        'src/devices/gpio/cdev.ts: initialMs = 100',
      ]),
    );
  });

  it('a planted figure is found once each; a configured time scaled or floored is not', () => {
    const planted = 'src/technician/planted-timer.ts';
    const text = [
      "import { sleep, waitUntil } from '../time.js';",
      'const SETTLE = 250;',
      'export async function f(config: { timing: { doorOpenTimeoutMs: number } }) {',
      '  await sleep(SETTLE);',
      '  setTimeout(() => undefined, config.timing.doorOpenTimeoutMs + 1_000);',
      '  await waitUntil({ check: () => undefined, wake: () => () => undefined, limitMs: 60 * 1000 });',
      '  await sleep(config.timing.doorOpenTimeoutMs * 2);',
      '  await sleep(Math.max(0, config.timing.doorOpenTimeoutMs));',
      '}',
    ].join('\n');
    parsed.set(planted, ts.createSourceFile(planted, text, ts.ScriptTarget.ES2022, true));
    expect(figuresIn(planted)).toEqual([
      `${planted}: sleep(…SETTLE…)`,
      `${planted}: setTimeout(…config.timing.doorOpenTimeoutMs + 1_000…)`,
      `${planted}: limitMs = 60 * 1000`,
    ]);
  });

  it('none outside the exceptions', () => {
    expect(found.filter((f) => !(f in EXCEPTIONS))).toEqual([]);
  });

  it('every exception is still there (none kept for a figure that has gone)', () => {
    expect(Object.keys(EXCEPTIONS).filter((e) => !found.includes(e))).toEqual([]);
  });

  it('ARCHITECTURE.md names the file of every exception', () => {
    const architecture = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const files = [...new Set(Object.keys(EXCEPTIONS).map((e) => e.split(':')[0]!.replace(/^src\//, '')))];
    expect(files.filter((f) => !architecture.includes(`\`${f}\``))).toEqual([]);
  });
});
