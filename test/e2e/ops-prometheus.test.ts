/**
 * Against the real thing: the built daemon (simulated hardware) against the reference server, a
 * Debian Prometheus scraping its /metrics with a token file, and a Debian node_exporter reading
 * the station's textfile folder — all on 127.0.0.1, everything asked through Prometheus' HTTP API.
 *
 * Short intervals come from config (the station's heartbeat, answer time-out and textfile
 * interval; Prometheus' scrape and evaluation intervals), never from a test switch in the code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { ReferenceServer, SEED_BARCODES, defaultSeed } from '../../src/reference-server/index.js';
import { sleep, STATION, waitFor } from '../support/shared.js';
import { requireTool, runs } from '../support/tools.js';
import { dashboardExpressions, freePort, instantiate, metricNamesIn } from '../support/ops-assets.js';

const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/src/main.js');
const RULES = join(ROOT, 'ops/prometheus/rules/pickup-station.rules.yml');
const DASHBOARD = join(ROOT, 'ops/grafana/pickup-station-dashboard.json');

const haveProm = requireTool('prometheus', runs('prometheus', ['--version']), 'prometheus');
const haveNodeExporter = requireTool('prometheus-node-exporter', runs('prometheus-node-exporter', ['--version']), 'prometheus-node-exporter');

interface Child {
  readonly proc: ChildProcess;
  readonly exited: Promise<unknown>;
  out(): string;
}
const children: Child[] = [];

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] }): Child {
  const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const c = { proc, exited: new Promise((r) => proc.once('exit', r)), out: () => out };
  children.push(c);
  return c;
}

interface PromResult {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

let promUrl = '';
async function query(expr: string): Promise<PromResult[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: PromResult[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? res.status}`);
  const data = body.data as { resultType: string; result: PromResult[] | [number, string] };
  // A scalar (vector(0) folded, a number) counts as one unlabelled sample.
  return data.resultType === 'scalar' ? [{ metric: {}, value: data.result as [number, string] }] : (data.result as PromResult[]);
}
async function valueOf(expr: string): Promise<number | null> {
  const r = await query(expr);
  return r.length === 1 ? Number(r[0]!.value[1]) : null;
}
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const t0 = performance.now();
  let last: unknown = null;
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      last = e;
    }
    if (performance.now() - t0 > timeoutMs)
      throw new Error(`timed out waiting for: ${what}${last ? ` (last error: ${last instanceof Error ? last.message : 'none'})` : ''}`);
    await sleep(250);
  }
}

const station = STATION.id;
const tokens = { metrics: newToken(), service: newToken(), wrong: newToken() };
let server: ReferenceServer;
let daemon: Child;
let techUrl = '';
let textfileDir = '';

describe.runIf(haveProm && haveNodeExporter)('a real Prometheus and node_exporter', () => {
  beforeAll(async () => {
    server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
    const serverUrl = await server.start();
    const dir = mkdtempSync(join(tmpdir(), 'prom-e2e-'));
    textfileDir = join(dir, 'textfile');
    mkdirSync(textfileDir);
    writeFileSync(join(dir, 'station-password'), STATION.password);
    writeFileSync(join(dir, 'metrics.token'), `${tokens.metrics}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'wrong.token'), `${tokens.wrong}\n`, { mode: 0o600 });
    const config = {
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(serverUrl).origin, answerTimeoutMs: 300 },
      timing: { heartbeatIntervalMs: 1_000 },
      hardware: { kind: 'simulated', doorSpringMs: 20 },
      storage: { directory: null },
      technician: {
        listen: { host: '127.0.0.1', port: 0 },
        tokens: [
          { name: 'prometheus', scope: 'metrics', hash: hashToken(tokens.metrics) },
          { name: 'tester', scope: 'service', hash: hashToken(tokens.service) },
        ],
      },
      metrics: { textfileDir, textfileIntervalMs: 500 },
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    daemon = start(process.execPath, [MAIN, '--config', join(dir, 'config.json')], { PATH: process.env['PATH'], CREDENTIALS_DIRECTORY: dir });
    const listening = await waitFor('technician port', () => /"address":"(http:\/\/127\.0\.0\.1:\d+)".*technician port listening/.exec(daemon.out()), 15_000);
    techUrl = listening[1] as string;

    const nodePort = await freePort();
    start('prometheus-node-exporter', [
      `--web.listen-address=127.0.0.1:${nodePort}`,
      '--collector.disable-defaults',
      '--collector.textfile',
      `--collector.textfile.directory=${textfileDir}`,
    ]);

    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    const target = new URL(techUrl).host;
    const job = (name: string, auth: string): string =>
      `  - job_name: ${name}\n    metrics_path: /metrics\n${auth}    static_configs:\n      - targets: ['${target}']\n`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\n',
        `rule_files:\n  - ${RULES}\n`,
        'scrape_configs:\n',
        job('pickup-station', `    authorization:\n      credentials_file: ${join(dir, 'metrics.token')}\n`),
        job('pickup-station-wrong-token', `    authorization:\n      credentials_file: ${join(dir, 'wrong.token')}\n`),
        job('pickup-station-no-token', ''),
        `  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:${nodePort}']\n`,
      ].join(''),
    );
    start('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ]);
    await eventually('Prometheus ready', async () => (await fetch(`${promUrl}/-/ready`)).ok, 30_000);
  }, 60_000);

  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await server?.stop();
  });

  it('scrapes /metrics with the token file: the target is up and the events counter grows', async () => {
    await eventually('station target up', async () => (await valueOf('up{job="pickup-station"}')) === 1);
    const expr = `sum(pickup_station_events_total{job="pickup-station", station="${station}", endpoint="state"})`;
    await eventually('a first count', async () => ((await valueOf(expr)) ?? 0) >= 1);
    const first = (await valueOf(expr)) as number;
    await eventually('the counter grows with the heartbeat', async () => ((await valueOf(expr)) ?? 0) >= first + 2);

    // A deposit through the technician port: counted by endpoint and outcome, the pulse by box.
    const r = await fetch(`${techUrl}/api/inject/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.service}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: SEED_BARCODES[0] }),
    });
    expect(r.status).toBe(202);
    await eventually(
      'the deposit in Prometheus',
      async () => (await valueOf(`pickup_station_events_total{job="pickup-station", endpoint="item-identify", outcome="box-open"}`)) === 1,
    );
    expect(await valueOf(`pickup_station_lock_pulses_total{job="pickup-station", box="1"}`)).toBe(1);
    expect(await valueOf(`pickup_station_lock_pulses_total{job="pickup-station", box="2"}`)).toBe(0);
  });

  it('refuses a wrong or a missing token: Prometheus reports those targets down with the 401', async () => {
    await eventually('both refused targets scraped and down', async () => (await valueOf('count(up{job=~"pickup-station-(wrong|no)-token"} == 0)')) === 2);
    const targets = (await (await fetch(`${promUrl}/api/v1/targets`)).json()) as {
      data: { activeTargets: { labels: { job: string }; health: string; lastError: string }[] };
    };
    const byJob = new Map(targets.data.activeTargets.map((t) => [t.labels.job, t]));
    for (const job of ['pickup-station-wrong-token', 'pickup-station-no-token']) {
      expect(byJob.get(job)?.health).toBe('down');
      expect(byJob.get(job)?.lastError).toContain('401');
    }
    expect(byJob.get('pickup-station')?.health).toBe('up');
    // The refused scrapes saw nothing: not one station series under their jobs.
    expect(await query('pickup_station_events_total{job=~"pickup-station-(wrong|no)-token"}')).toEqual([]);
  });

  it('reads the textfile through node_exporter: the same station series, no collector error', async () => {
    await eventually(
      'textfile series via node_exporter',
      async () => ((await valueOf(`sum(pickup_station_events_total{job="node", station="${station}"})`)) ?? 0) >= 1,
    );
    expect(await valueOf('node_textfile_scrape_error{job="node"}')).toBe(0);
    // The same mode as the direct scrape (box 1 stands open after the deposit above: closing).
    await eventually('the same mode both ways', async () => {
      const modes = await query(`pickup_station_mode{job=~"pickup-station|node", station="${station}"} == 1`);
      return modes.length === 2 && modes.every((m) => m.metric['mode'] === 'closing');
    });
    const mtime = await query('node_textfile_mtime_seconds{job="node"}');
    expect(mtime.map((m) => m.metric['file'])).toEqual([expect.stringMatching(/(^|\/)pickup-station\.prom$/)]);
  });

  it('evaluates every dashboard query and loads every alert rule without an error', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Parameters<typeof dashboardExpressions>[0];
    for (const expr of dashboardExpressions(dashboard)) await query(instantiate(expr, station));
    // A query that draws something for this station, per metric family the dashboard uses.
    const used = new Set(dashboardExpressions(dashboard).flatMap(metricNamesIn));
    for (const name of used) expect((await query(`${name}{job="pickup-station"}`)).length, name).toBeGreaterThan(0);
    // Every rule of the file: alerting and recording rules alike.
    const ruleCount = [...readFileSync(RULES, 'utf8').matchAll(/^\s*- (alert|record):/gm)].length;
    expect(ruleCount).toBeGreaterThan(15);
    await eventually('every rule evaluated', async () => {
      const rules = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      };
      const all = rules.data.groups.flatMap((g) => g.rules);
      expect(all).toHaveLength(ruleCount);
      for (const r of all) if (r.health === 'err') throw new Error(`${r.name}: ${r.lastError ?? ''}`);
      return all.every((r) => r.health === 'ok');
    });
  });

  it('shows the mode turn deactivated once the reference server stops answering (scraped and via the textfile)', async () => {
    await server.stop();
    await eventually(
      'deactivated in Prometheus',
      async () => (await valueOf(`pickup_station_mode{job="pickup-station", station="${station}", mode="deactivated"}`)) === 1,
    );
    expect(await valueOf(`pickup_station_deactivations_total{job="pickup-station", station="${station}"}`)).toBe(1);
    expect(((await valueOf(`pickup_station_events_total{job="pickup-station", endpoint="state", outcome="unanswered"}`)) ?? 0) >= 1).toBe(true);
    await eventually(
      'deactivated via node_exporter',
      async () => (await valueOf(`pickup_station_mode{job="node", station="${station}", mode="deactivated"}`)) === 1,
    );
  });
});
