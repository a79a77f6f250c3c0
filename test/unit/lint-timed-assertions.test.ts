/**
 * No timed assertions (test/README.md, ARCHITECTURE.md): a test says what happened and in which
 * order, on a fake clock where the code takes one; how fast is `npm run bench`. This finds, in the
 * syntax tree of every test file, an `expect(…)` whose value or matcher reads the wall clock —
 * `performance.now()` or `Date.now()`, or a name or property that holds a reading or a difference
 * of readings — or that bounds a duration the code measured (a name ending in Ms or Gap) by a fixed
 * figure, outside the few listed below, each with why it is not a figure of speed.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT as ROOT, projectFiles } from '../support/project-files.js';

/**
 * Allowed, by file and the assertion's text (or by file alone, every assertion of it), with why.
 * Unit tests are not searched: they run on the fake clock (they may not wait in real time), so what
 * they read is the fake clock's time.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  'test/integration/runtime-refusal-storm.test.ts':
    'a campaign that counts requests and log lines over a window of real time: each bound is made from the time that actually passed (a slower run gets a larger one), so it asserts a rate limit, not a speed',
  'test/integration/technician-log-flood.test.ts': 'as above: the refusal lines of a flood, at most one per interval of the time the flood actually took',
  'test/integration/simulated-control.test.ts: expect(at).toBeGreaterThanOrEqual(before)':
    "which clock the reference server reads by default: its reading lies between two of the test's own, not a duration",
  'test/integration/simulated-control.test.ts: expect(at).toBeLessThanOrEqual(performance.now())': 'as above',
  'test/e2e/technician-port-flood.test.ts: expect(r.ms).toBeGreaterThanOrEqual(1_000)':
    "a lower bound of behaviour, not of speed: a 408 before the port's configured head time-out would be another time-out's (a timer never fires early); how late it fires is not asserted",
};

/** `performance.now()` or `Date.now()`. */
function isClockRead(n: ts.Node): boolean {
  return (
    ts.isCallExpression(n) &&
    n.arguments.length === 0 &&
    ts.isPropertyAccessExpression(n.expression) &&
    n.expression.name.text === 'now' &&
    ['performance', 'Date'].includes(n.expression.expression.getText())
  );
}

/** Whether `test` holds of `n` or of anything in it, functions' bodies aside. */
function some(n: ts.Node, test: (n: ts.Node) => boolean): boolean {
  if (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) return false;
  return test(n) || (ts.forEachChild(n, (c) => (some(c, test) ? true : undefined)) ?? false);
}

/** A value, without what does not change it: parentheses, `as`, `!`. */
function strip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

const ORDERING = new Set(['toBeLessThan', 'toBeLessThanOrEqual', 'toBeGreaterThan', 'toBeGreaterThanOrEqual']);
/** A name that says it is a duration the code measured: `…Ms`, `…ms`, `…Gap`. */
const DURATION = /(Ms|ms|MS|Gap)$/;

/**
 * Whether the assertion bounds a duration the code under test measured (`openedAfterMs`, an age, a
 * gap between heartbeats) by a fixed figure: the wall clock, read by the code instead of the test.
 */
function boundsMeasuredTime(call: ts.CallExpression, whole: ts.Node): boolean {
  if (!ts.isCallExpression(whole) || !ts.isPropertyAccessExpression(whole.expression) || !ORDERING.has(whole.expression.name.text)) return false;
  const value = call.arguments[0] && strip(call.arguments[0]);
  if (value === undefined) return false;
  const name = ts.isPropertyAccessExpression(value)
    ? value.name.text
    : ts.isElementAccessExpression(value) && ts.isStringLiteral(value.argumentExpression)
      ? value.argumentExpression.text
      : ts.isIdentifier(value)
        ? value.text
        : '';
  const bound = whole.arguments[0];
  // A figure: literals and constants named in capitals, nothing the test measured or counted.
  const figure = bound !== undefined && !some(bound, (n) => ts.isIdentifier(n) && !/^[A-Z][A-Z0-9_]*$/.test(n.text) && n.text !== 'Math');
  return DURATION.test(name) && figure;
}

/** Every `expect(…)…` assertion of `text` that reads the wall clock, as "file: assertion". */
function timedAssertions(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  // Names and property names that hold a clock reading or something made from one, to a fixed point.
  const names = new Set<string>();
  const props = new Set<string>();
  const holdsClock = (e: ts.Node): boolean =>
    some(
      e,
      (n) =>
        isClockRead(n) ||
        (ts.isIdentifier(n) && names.has(n.text) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) ||
        (ts.isPropertyAccessExpression(n) && props.has(n.name.text)),
    );
  for (let grew = true; grew;) {
    grew = false;
    const visit = (n: ts.Node): void => {
      const bind = (name: ts.Node, value: ts.Node | undefined, into: Set<string>): void => {
        if (value && ts.isIdentifier(name) && !into.has(name.text) && holdsClock(value)) {
          into.add(name.text);
          grew = true;
        }
      };
      if (ts.isVariableDeclaration(n)) bind(n.name, n.initializer, names);
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) bind(n.left, n.right, names);
      if (ts.isPropertyAssignment(n)) bind(n.name, n.initializer, props);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'expect') {
      // The whole assertion: expect(value)[.not].matcher(expected).
      let whole: ts.Node = n;
      while ((ts.isPropertyAccessExpression(whole.parent) || ts.isCallExpression(whole.parent)) && whole.parent.getStart() === n.getStart())
        whole = whole.parent;
      if (holdsClock(whole) || boundsMeasuredTime(n, whole)) out.push(`${file}: ${whole.getText().replace(/\s+/g, ' ')}`);
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const files = projectFiles((name) => name.endsWith('.ts'), join(ROOT, 'test')).map((f) => relative(ROOT, f));
const found = files.flatMap((f) => {
  const text = readFileSync(join(ROOT, f), 'utf8');
  return f in ALLOWED || f.startsWith('test/unit/') ? [] : timedAssertions(f, text);
});

describe('no timed assertions in the tests', () => {
  it('finds a planted one in each shape: a reading, a difference kept in a name or a property, a measured duration bounded by a figure', () => {
    const planted = [
      'const t0 = performance.now();',
      'await work();',
      'expect(performance.now() - t0).toBeLessThan(2_000);',
      'const ms = Date.now() - started;',
      'expect(ms).toBeGreaterThanOrEqual(480);',
      'const r = { ms: performance.now() - t0 };',
      'expect(r.ms).toBeLessThan(300);',
      "expect(body['lastServerContactAgeMs'] as number).toBeLessThan(2_000);",
      'expect(hb.maxGap).toBeLessThan(2 * HEARTBEAT_MS);',
      'expect(report.openedAfterMs).toEqual(expect.any(Number));',
      'expect(contactAgeMs).toBeLessThanOrEqual(identify.ageMs);',
      "expect(events).toEqual(['sent', 'answered']);",
    ].join('\n');
    expect(timedAssertions('test/unit/planted.test.ts', planted)).toEqual([
      'test/unit/planted.test.ts: expect(performance.now() - t0).toBeLessThan(2_000)',
      'test/unit/planted.test.ts: expect(ms).toBeGreaterThanOrEqual(480)',
      'test/unit/planted.test.ts: expect(r.ms).toBeLessThan(300)',
      "test/unit/planted.test.ts: expect(body['lastServerContactAgeMs'] as number).toBeLessThan(2_000)",
      'test/unit/planted.test.ts: expect(hb.maxGap).toBeLessThan(2 * HEARTBEAT_MS)',
    ]);
  });

  it('none outside the listed few', () => {
    expect(found.filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it('every listed one is still there (a file listed whole still asserts on the clock)', () => {
    const stale = Object.keys(ALLOWED).filter((a) =>
      a.includes(': ') ? !found.includes(a) : timedAssertions(a, readFileSync(join(ROOT, a), 'utf8')).length === 0,
    );
    expect(stale).toEqual([]);
  });
});
