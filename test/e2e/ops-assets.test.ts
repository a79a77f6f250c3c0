/**
 * The monitoring assets in ops/: Prometheus' own tool checks the example configs, the alert rules
 * and their unit tests, and lints what /metrics serves; the Grafana dashboard names only metrics
 * the station exports. (Every dashboard and rule expression is also evaluated by a real Prometheus
 * in test/e2e/ops-prometheus.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { requireTool, runs } from '../support/tools.js';
import { dashboardExpressions, exportedNames, metricNamesIn } from '../support/ops-assets.js';

const ROOT = join(import.meta.dirname, '../..');
const havePromtool = requireTool('promtool', runs('promtool', ['--version']), 'prometheus');

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe.runIf(havePromtool)('promtool', () => {
  it('ops/check.sh: the example configs parse, the rules check, and the rules pass their unit tests', () => {
    const r = spawnSync('bash', [join(ROOT, 'ops/check.sh')], { encoding: 'utf8' });
    const rules = readFileSync(join(ROOT, 'ops/prometheus/rules/pickup-station.rules.yml'), 'utf8');
    const count = [...rules.matchAll(/^\s*- (alert|record):/gm)].length;
    expect(count).toBeGreaterThan(15);
    expect(r.stderr + r.stdout).toContain(`SUCCESS: ${count} rules found`);
    expect(r.stdout).toMatch(/Unit Testing:.*\n\s+SUCCESS/);
    expect(r.status).toBe(0);
  });

  it('check metrics: every pickup_station_ metric of a running station follows the naming conventions', async () => {
    d = await startDebugHarness();
    await idle(d);
    const text = (await d.call('GET', '/metrics', { token: d.tokens.metrics })).text;
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const problems = (r.stdout + r.stderr).split('\n').filter((l) => l.trim() !== '');
    // prom-client's own default gauges carry _total (nodejs_active_handles_total …): theirs, kept
    // under our prefix as prom-client names them so its documentation still applies.
    const ours = problems.filter(
      (l) => !/^pickup_station_nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/.test(l),
    );
    expect(ours).toEqual([]);
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'ops/grafana/pickup-station-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: { id: number; type: string; datasource?: { uid: string }; targets?: { datasource: { uid: string }; expr: string }[] }[];
    templating: { list: { name: string; query?: unknown }[] };
  };

  it('is one dashboard with unique panel ids, a datasource variable used by every query, and a station variable', () => {
    expect(dashboard.uid).toBe('pickup-station-fleet');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'station']);
    for (const p of dashboard.panels.filter((x) => x.type !== 'row')) {
      expect(p.datasource?.uid, `panel ${p.id}`).toBe('${datasource}');
      for (const t of p.targets ?? []) expect(t.datasource.uid).toBe('${datasource}');
    }
  });

  it('names only metrics a running station exports (histogram series by their family)', async () => {
    d = await startDebugHarness();
    await idle(d);
    const exported = exportedNames((await d.call('GET', '/metrics', { token: d.tokens.metrics })).text);
    const used = new Set(dashboardExpressions(dashboard).flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) expect(exported, name).toContain(name);
    const rules = readFileSync(join(ROOT, 'ops/prometheus/rules/pickup-station.rules.yml'), 'utf8');
    // support_days_left comes from a release's vendor.json, which a checkout has not: the daemon run
    // from a release exports it (test/e2e/bundle-vendor.test.ts). credential_undecryptable and
    // credentials_tpm_lockout, credentials_sealed and credentials_pcrs_measured are written before the
    // daemon starts, by the unit's credentials check into node_exporter's textfile folder
    // (test/e2e/systemd-credentials.test.ts).
    const notTheDaemons = new Set([
      'pickup_station_support_days_left',
      'pickup_station_credential_undecryptable',
      'pickup_station_credentials_tpm_lockout',
      'pickup_station_credentials_sealed',
      'pickup_station_credentials_pcrs_measured',
    ]);
    for (const name of metricNamesIn(rules).filter((n) => !notTheDaemons.has(n))) expect(exported, name).toContain(name);
  });
});
