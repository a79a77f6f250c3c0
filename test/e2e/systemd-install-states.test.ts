/**
 * The installer's state table (systemd/installer/states.tsv) driven row by row against a throwaway
 * root (install.sh --root): each "run" row from its prepared start, uncut, goes through the states
 * the row names (the steps the installer says in its journal, each a "step" row); each "cut" row
 * kills that run right after it saved the state named (PICKUP_INSTALL_CUT: a power cut, /run
 * emptied after it), then --repair and --resume each leave the state and `current` the row names.
 * A row without a driver here, a run state without its cut row, or a step or state no run makes
 * fails. The package's layout (--package-release), proofs taken as given in --root except for the
 * versions PICKUP_INSTALL_UNHEALTHY names.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAN_SEAL, CredentialBoard } from '../support/credential-board.js';
import { releaseFiles } from '../support/installer-files.js';
import { requireTool, runs } from '../support/tools.js';

const REPO = join(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'systemd/install.sh');
const TABLE = readFileSync(join(REPO, 'systemd/installer/states.tsv'), 'utf8');
const IS_ROOT = process.getuid?.() === 0;
const HAVE_SYSTEMCTL = requireTool('systemctl', runs('systemctl', ['--version']), 'systemd');
const HAVE_CREDS = requireTool('systemd-creds, swtpm and unshare -m (root)', CAN_SEAL, 'systemd swtpm tpm2-tools util-linux');

// --- the table ---------------------------------------------------------------------------------
const rows = (kind: string): string[][] =>
  TABLE.split('\n')
    .filter((l) => l.startsWith(`${kind}\t`))
    .map((l) => l.split('\t').slice(1));
interface StateRow {
  readonly name: string;
  readonly cells: readonly string[]; // proof switching pending proven result
}
const STATES: StateRow[] = rows('state').map(([name, ...cells]) => ({ name: name!, cells: cells.slice(0, 5) }));
const STEPS = rows('step').map(([from, to]) => `${from} -> ${to}`);
const RUNS = rows('run').map(([run, start, passed]) => ({ run: run!, start: start!, passed: passed!.split(' ') }));
const CUTS = rows('cut').map(([run, after, repaired, repairedCurrent, resumed, resumedCurrent]) => ({
  run: run!,
  after: after!,
  repaired: repaired!,
  repairedCurrent: repairedCurrent!,
  resumed: resumed!,
  resumedCurrent: resumedCurrent!,
}));

type Rec = Record<string, string | number>;
/** The state a record is in, by the table's "state" rows, read here as states.tsv says. */
function stateOf(rec: Rec | undefined, current: string | undefined): string {
  if (rec === undefined) return current === undefined ? 'fresh' : 'unknown';
  const v = (k: string) => String(rec[k] ?? '');
  const holds = (value: string, cell: string): boolean => {
    const target = value.slice(value.indexOf('>') + 1);
    switch (cell) {
      case '-':
        return true;
      case 'none':
        return value === '';
      case 'some':
        return value !== '';
      case 'back':
        return value !== '' && target === v('proven');
      case 'forward':
        return value !== '' && target !== v('proven');
      default:
        return value === cell;
    }
  };
  const fields = ['proof', 'switching', 'pending', 'proven', 'result'];
  return STATES.find((s) => s.cells.every((cell, i) => holds(v(fields[i]!), cell)))?.name ?? 'unknown';
}

// --- the throwaway root --------------------------------------------------------------------------
const P = '1.0.0';
const V = '1.1.0';
/** A release newer than both (after V was rolled back). */
const W = '1.2.0';
let work: string;
let root: string;
let board: CredentialBoard;
/** The steps and states the rows' runs made (not the runs that prepare a start). */
const seenSteps = new Set<string>();
let counting = true;
const seenStates = new Set<string>();

/** What dpkg unpacks for VERSION: the release tree the package's postinst hands the installer. */
function unpack(version: string): string {
  const tree = join(root, 'usr/lib/pickup-station/release');
  rmSync(tree, { recursive: true, force: true });
  const files = { ...releaseFiles(version, `# ${version}\n`), 'manifest.json': JSON.stringify({ name: 'pickup-station', version }) };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(tree, f, '..'), { recursive: true });
    writeFileSync(join(tree, f), text);
  }
  for (const h of ['repair', 'upgrade']) {
    mkdirSync(join(root, 'usr/lib/systemd/system'), { recursive: true });
    writeFileSync(join(root, `usr/lib/systemd/system/pickup-station-${h}.service`), readFileSync(join(REPO, `systemd/pickup-station-${h}.service`)));
  }
  return tree;
}

interface Ran {
  readonly status: number | null;
  readonly out: string;
  readonly steps: string[];
}
function install(args: string[], env: NodeJS.ProcessEnv = {}): Ran {
  const journal = join(work, 'commands.txt');
  rmSync(journal, { force: true });
  const r = spawnSync('bash', [SCRIPT, '--root', root, ...args], {
    env: {
      PATH: process.env['PATH'],
      NODE: process.execPath,
      TMPDIR: join(work, 'tmp'),
      PICKUP_INSTALL_RECORD: journal,
      SYSTEMD_CREDS: board.creds,
      PICKUP_CREDENTIAL_KEY: 'host',
      ...env,
    },
    encoding: 'utf8',
  });
  const out = r.stdout + r.stderr;
  expect(out, `${args.join(' ')}: ${out}`).not.toMatch(/not a step of the installer's state table/);
  const steps = (existsSync(journal) ? readFileSync(journal, 'utf8') : '')
    .split('\n')
    .map((l) => / -- installer state: (\S+ -> \S+)$/.exec(l)?.[1])
    .filter((s): s is string => s !== undefined);
  if (counting) for (const s of steps) seenSteps.add(s);
  return { status: r.status, out, steps };
}
const current = (): string | undefined =>
  existsSync(join(root, 'opt/pickup-station/current')) ? readlinkSync(join(root, 'opt/pickup-station/current')).replace(/^releases\//, '') : undefined;
const record = (): Rec | undefined => {
  const f = join(root, 'opt/pickup-station/install-status.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as Rec) : undefined;
};
const state = (): string => {
  const s = stateOf(record(), current());
  if (counting) seenStates.add(s);
  return s;
};
const ok = (r: Ran): Ran => {
  expect(r.status, r.out).toBe(0);
  return r;
};

// --- the starts and the runs: how each is reached and made --------------------------------------
/** P installed and proven; `pw` its password. */
const proven = () => ok(install(['--package-release', unpack(P), '--password-file', join(work, 'pw')]));
const START: Record<string, () => void> = {
  fresh: () => undefined,
  proven,
  // The package's postinst of V with the station not to be started: V waits.
  deferred: () => {
    proven();
    ok(install(['--package-release', unpack(V), '--no-start']));
  },
  // V failed its proof and P came back.
  'rolled-back': () => {
    proven();
    install(['--package-release', unpack(V)], { PICKUP_INSTALL_UNHEALTHY: V });
  },
  // V proven after P: `previous` is P.
  'proven-upgraded': () => {
    proven();
    ok(install(['--package-release', unpack(V)]));
  },
  // V's switch cut off three times (MAX_ATTEMPTS), each repaired before the next start.
  'deferred-thrice': () => {
    proven();
    install(['--package-release', unpack(V)], { PICKUP_INSTALL_CUT: 'switching' });
    ok(install(['--repair']));
    for (let i = 0; i < 2; i++) {
      install(['--resume'], { PICKUP_INSTALL_CUT: 'switching' });
      ok(install(['--repair']));
    }
  },
};
interface Run {
  readonly start: keyof typeof START;
  /** The run, with PICKUP_INSTALL_CUT in `env` when cut. */
  readonly go: (env: NodeJS.ProcessEnv) => Ran;
  /** What P and V (the table's current columns) are for this run. */
  readonly p: string;
  readonly v: string;
  /** The environment of every run of the row: its repair and resume too. */
  readonly env?: NodeJS.ProcessEnv;
}
const pw = (): string[] => ['--password-file', join(work, 'pw')];
const RUN: Record<string, Run> = {
  'first-install': { start: 'fresh', p: P, v: V, go: (env) => install(['--package-release', unpack(V), ...pw()], env) },
  'first-install-unhealthy': {
    start: 'fresh',
    p: P,
    v: V,
    env: { PICKUP_INSTALL_UNHEALTHY: V },
    go: (env) => install(['--package-release', unpack(V), ...pw()], env),
  },
  upgrade: { start: 'proven', p: P, v: V, go: (env) => install(['--package-release', unpack(V)], env) },
  'upgrade-unhealthy': { start: 'proven', p: P, v: V, env: { PICKUP_INSTALL_UNHEALTHY: V }, go: (env) => install(['--package-release', unpack(V)], env) },
  'upgrade-rollback-fails': {
    start: 'proven',
    p: P,
    v: V,
    env: { PICKUP_INSTALL_UNHEALTHY: `${V} ${P}` },
    go: (env) => install(['--package-release', unpack(V)], env),
  },
  'upgrade-deferred': { start: 'proven', p: P, v: V, go: (env) => install(['--package-release', unpack(V), '--no-start'], env) },
  resume: { start: 'deferred', p: P, v: V, go: (env) => install(['--resume'], env) },
  'resume-given-up': { start: 'deferred-thrice', p: P, v: V, go: (env) => install(['--resume'], env) },
  'known-bad-again': { start: 'rolled-back', p: P, v: V, go: (env) => install(['--package-release', unpack(V)], env) },
  rollback: { start: 'proven-upgraded', p: V, v: P, go: (env) => install(['--rollback'], env) },
  'rollback-unhealthy': { start: 'proven-upgraded', p: V, v: P, env: { PICKUP_INSTALL_UNHEALTHY: P }, go: (env) => install(['--rollback'], env) },
  'rollback-fails': { start: 'proven-upgraded', p: V, v: P, env: { PICKUP_INSTALL_UNHEALTHY: `${P} ${V}` }, go: (env) => install(['--rollback'], env) },
  'upgrade-after-rollback': { start: 'rolled-back', p: P, v: W, go: (env) => install(['--package-release', unpack(W)], env) },
  'deferred-after-rollback': { start: 'rolled-back', p: P, v: W, go: (env) => install(['--package-release', unpack(W), '--no-start'], env) },
};

/** Each start made once, then copied back for each row (cp -a keeps the hard links the package's releases are). */
const made = new Map<string, string>();
function from(start: string): void {
  rmSync(root, { recursive: true, force: true });
  let saved = made.get(start);
  if (saved === undefined) {
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\ndialout:x:20:\n');
    counting = false;
    try {
      START[start]!();
    } finally {
      counting = true;
    }
    saved = join(work, 'starts', start);
    mkdirSync(join(saved, '..'), { recursive: true });
    expect(spawnSync('cp', ['-a', root, saved]).status).toBe(0);
    made.set(start, saved);
    return;
  }
  expect(spawnSync('cp', ['-a', saved, root]).status).toBe(0);
}

/**
 * Every cut row with INSTALLER_CUTS=all (`npm run test:installer-states`); `npm test` takes one in
 * four, the quarter named by the commit's last hex digit, so that four commits cover the table
 * (each cut row costs three installer runs: the whole table is minutes of bash on a 2-core
 * machine). Every run row runs in both.
 */
const ALL_CUTS = process.env['INSTALLER_CUTS'] === 'all';
const QUARTER = Number.parseInt((spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).stdout ?? '').trim().slice(-1) || '0', 16) % 4;
const CUTS_RUN = ALL_CUTS ? CUTS : CUTS.filter((_, i) => i % 4 === QUARTER);

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_CREDS)("the installer's state table, row by row", { timeout: 900_000 }, () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'install-states-'));
    chmodSync(work, 0o755);
    root = join(work, 'root');
    mkdirSync(join(work, 'tmp'));
    board = new CredentialBoard(join(work, 'board'));
    writeFileSync(join(work, 'pw'), 'AbCdEfGhIjKlMnOpQrSt');
  });
  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('every run of the table has its driver here, and every driver its row', () => {
    expect(RUNS.map((r) => r.run).sort()).toEqual(Object.keys(RUN).sort());
    for (const c of CUTS) expect(RUN[c.run], c.run).toBeDefined();
  });

  it.each(RUNS)('run $run from $start: the states it passes', ({ run, start, passed }) => {
    const d = RUN[run]!;
    from(d.start);
    expect(state(), 'the start').toBe(start);
    const r = d.go(d.env ?? {});
    const trail = r.steps.map((s) => s.split(' -> ')[1]);
    expect(trail, r.out).toEqual(passed);
    expect(state(), r.out).toBe(passed.at(-1));
    // Each state it passes is an interruption point with its row.
    for (const s of new Set(passed))
      expect(
        CUTS.some((c) => c.run === run && c.after === s),
        `cut ${run} ${s}`,
      ).toBe(true);
  });

  it.each(CUTS_RUN)('$run cut after $after: --repair leaves $repaired, --resume $resumed', (c) => {
    const d = RUN[c.run]!;
    const at = (pv: string) => (pv === 'P' ? d.p : d.v);
    from(d.start);
    const cut = d.go({ ...d.env, PICKUP_INSTALL_CUT: c.after });
    expect(cut.out).toContain(`cut off after saving '${c.after}'`);
    expect(cut.status).not.toBe(0);
    expect(state(), cut.out).toBe(c.after);
    rmSync(join(root, 'run'), { recursive: true, force: true }); // the power cut: /run is a tmpfs
    const repaired = install(['--repair'], d.env);
    expect(repaired.status, repaired.out).toBe(0);
    expect(state(), repaired.out).toBe(c.repaired);
    expect(current(), repaired.out).toBe(at(c.repairedCurrent));
    const resumed = install(['--resume'], d.env);
    expect(state(), resumed.out).toBe(c.resumed);
    expect(current(), resumed.out).toBe(at(c.resumedCurrent));
    const status = install(['--status'], d.env);
    expect(status.out).toContain(`state: ${c.resumed}\n`);
  });

  it.skipIf(!ALL_CUTS)('every step and every state of the table was made by a row above', () => {
    expect([...seenSteps].filter((s) => !STEPS.includes(s))).toEqual([]);
    expect(STEPS.filter((s) => !seenSteps.has(s))).toEqual([]);
    expect(STATES.map((s) => s.name).filter((s) => !seenStates.has(s))).toEqual([]);
  });
});

describe('the state table itself', () => {
  it('names only states it defines, P or V for `current`, and each run and step at most once', () => {
    const names = new Set(['fresh', ...STATES.map((s) => s.name)]);
    const wrong: string[] = [];
    for (const s of STEPS) for (const n of s.split(' -> ')) if (!names.has(n)) wrong.push(`step ${s}: ${n}`);
    for (const r of RUNS) for (const n of [r.start, ...r.passed]) if (!names.has(n)) wrong.push(`run ${r.run}: ${n}`);
    for (const c of CUTS) {
      for (const n of [c.after, c.repaired, c.resumed]) if (!names.has(n)) wrong.push(`cut ${c.run} ${c.after}: ${n}`);
      for (const pv of [c.repairedCurrent, c.resumedCurrent]) if (pv !== 'P' && pv !== 'V') wrong.push(`cut ${c.run} ${c.after}: current ${pv}`);
      if (!RUNS.some((r) => r.run === c.run && r.passed.includes(c.after))) wrong.push(`cut ${c.run} ${c.after}: not a state that run passes`);
    }
    expect(wrong).toEqual([]);
    expect(new Set(STEPS).size).toBe(STEPS.length);
    expect(new Set(RUNS.map((r) => r.run)).size).toBe(RUNS.length);
    expect(new Set(CUTS.map((c) => `${c.run} ${c.after}`)).size).toBe(CUTS.length);
    // Each row has all its cells: a missing tab would shift them.
    for (const [kind, cells] of [
      ['state', 7],
      ['step', 3],
      ['run', 3],
      ['cut', 6],
    ] as const)
      for (const r of rows(kind)) expect(r, r.join(' | ')).toHaveLength(cells);
  });
});
