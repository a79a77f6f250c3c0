/**
 * docs/monitoring.md's way to a Prometheus token: `stationctl token new --scope metrics` (the built CLI).
 * Its entry, configured, lets the token in with the metrics scope, which allows /metrics and
 * nothing else (over HTTP: test/integration/metrics-endpoint.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStore, scopeAllows } from '../../src/tokens/tokens.js';
import { tokenListSchema } from '../../src/config/technician.js';

const CTL = join(import.meta.dirname, '../../dist/src/cli/stationctl.js');
const run = (args: string[]) => spawnSync(process.execPath, [CTL, ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] } });

describe('stationctl token new --scope metrics', () => {
  it('prints a token and an entry that technician.tokens accepts; the token verifies with the metrics scope, which reads nothing else', () => {
    const r = run(['token', 'new', '--scope', 'metrics', '--name', 'prometheus', '--json']);
    expect(r.status).toBe(0);
    const { token, entry } = JSON.parse(r.stdout) as { token: string; entry: unknown };
    const entries = tokenListSchema.parse([entry]);
    expect(new TokenStore(entries).verify(token)).toEqual({ name: 'prometheus', scope: 'metrics' });
    expect(scopeAllows('metrics', 'metrics')).toBe(true);
    expect(scopeAllows('metrics', 'read')).toBe(false);
    expect(scopeAllows('metrics', 'service')).toBe(false);
    expect(scopeAllows('read', 'metrics')).toBe(true);
    expect(scopeAllows('service', 'metrics')).toBe(true);

    const bad = run(['token', 'new', '--scope', 'admin']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--scope must be metrics, read or service');
  });
});
