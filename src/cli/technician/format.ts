/** Readable output of stationctl's technician commands (--json prints the API's JSON instead). */
import type { SelfTestReport } from '../../technician/selftest.js';
import { statusFaults } from '../../technician/faults.js';
import type { ConfigFileView, EventView, StatusBody } from '../../technician/status.js';
import { describeSupport } from '../../release-info.js';
import { describeSeal } from '../../service/credentials-check.js';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const age = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? 'never' : ms < 10_000 ? `${ms} ms ago` : `${Math.round(ms / 1000)} s ago`;

export function formatEvent(e: Omit<EventView, 'ageMs'> & { ageMs?: number }): string {
  const when = e.ageMs === undefined ? '' : `${pad(age(e.ageMs), 12)} `;
  return `${when}${pad(`/${e.endpoint}`, 15)} ${pad(e.outcome, 22)} attempts=${e.attempts} ${Math.round(e.ms)} ms  event=${e.eventId}  trace=${e.traceIds.join(',')}`;
}

export function formatStatus(s: StatusBody): string {
  const out: string[] = [];
  out.push(`station ${s.stationId}  (pickup-station ${s.version}, ${s.hardware} hardware)`);
  out.push(`mode        ${s.mode}${s.service ? '  [SERVICE MODE: /state DOWN "service"]' : ''}${s.busyWith ? `  [${s.busyWith} running]` : ''}`);
  out.push(
    `server      last contact ${age(s.lastServerContactAgeMs)}; in flight: ${s.inFlight ? `/${s.inFlight.endpoint} ${s.inFlight.eventId ?? ''}`.trim() : 'nothing'}`,
  );
  if (s.lastFailure)
    out.push(`last failure ${age(s.lastFailure.ageMs)}: /${s.lastFailure.endpoint} ${s.lastFailure.reason} (attempts=${s.lastFailure.attempts})`);
  const faults = statusFaults(s);
  out.push(`faults      ${faults.length === 0 ? 'none' : faults.join('; ')}`);
  out.push(`journal     ${s.journal.ok ? 'ok' : 'NOT WRITING'} (${s.journal.location})${s.journal.problem === null ? '' : `: ${s.journal.problem}`}`);
  out.push(`config      ${formatConfigFile(s.configFile)}`);
  const alarms = s.alarms ?? [];
  out.push(`alarms      ${alarms.length === 0 ? 'none' : alarms.map((a) => `${a.detail} (${a.kind})`).join('; ')}`);
  const t = s.pinThrottle;
  if (t && (t.failures > 0 || t.lockout !== null)) {
    out.push(`keypad      ${t.failures} wrong PIN(s) in a row${t.lockout ? `; LOCKED, ${Math.ceil(t.lockout.remainingMs / 1000)} s left` : ''}`);
  }
  if (s.tamper) out.push(`tamper      ${s.tamper.open ? 'OPEN' : 'closed'} (${s.tamper.name})`);
  if (s.usb)
    out.push(
      `unknown USB ${s.usb.unknown.length === 0 ? 'none plugged in' : s.usb.unknown.map((d) => `${d.vendorId}:${d.productId} on port ${d.port}${d.product === null ? '' : ` (${d.product})`}`).join('; ')}, ${s.usb.seenTotal} since start (${s.usb.policy})`,
    );
  const guard = s.usb?.guard ?? null;
  if (guard) {
    const boot =
      guard.bootDefault === '0'
        ? 'devices present at power-on were kept out until it judged them'
        : `devices present at power-on were AUTHORISED before it started (usbcore.authorized_default ${guard.bootDefault ?? 'unknown'}: cmdline.txt lacks usbcore.authorized_default=0, or the board was not rebooted since the install)`;
    out.push(`USB policy  ${guard.enforcing ? 'enforced by usbguard.service' : `${guard.problem ?? 'NOT ENFORCED'}: OUT OF SERVICE until it runs`}; ${boot}`);
  }
  const rfid = s.rfid;
  if (rfid?.securityPending)
    out.push(`rfid        clearing the security bit of item ${rfid.securityPending.itemId} (${rfid.securityPending.remaining.length} tag(s) to verify)`);
  for (const f of rfid?.securityFailures ?? []) out.push(`rfid        security bit NOT cleared on item ${f.itemId} (${f.uids.join(', ')}): ${f.reason}`);
  for (const r of rfid?.readers ?? []) {
    // Media format and the owner (masked already) for items: "…3F1 iso28560-3 careful handling owner ***718 (13)".
    const tags = r.lastTags.map((t) => `${t.uid} ${t.problem ?? t.model ?? ''}${t.media ? ` ${t.media}` : ''}${t.owner ? ` owner ${t.owner}` : ''}`);
    out.push(`rfid        ${r.name}: ${r.tagsRead} read; last: ${tags.length > 0 ? tags.slice(-5).reverse().join(', ') : 'none'}`);
  }
  if (s.release) out.push(`release     ${formatRelease(s.release)}`);
  for (const c of s.credentials?.sealed ?? []) out.push(`credential  ${c.credential}: ${describeSeal(c)}`);
  if (s.vendor) {
    out.push(`support     ${describeSupport(s.vendor)}`);
    if (s.vendor.securityContact !== null) out.push(`security    report flaws to ${s.vendor.securityContact}`);
  }
  out.push(`display     ${s.display.map((l) => `|${l}|`).join(' ')}`);
  out.push('', 'boxes');
  for (const b of s.boxes) {
    const lines = b.lines === null ? '' : `  lock ${b.lines.lock ?? '?'}, door ${b.lines.door ?? '?'}`;
    const last = b.lastAction === null ? '' : `  last: ${b.lastAction.what} at ${b.lastAction.at}`;
    out.push(`  ${pad(String(b.number), 4)} ${pad(b.door, 6)} lock ${b.lockEnergized ? 'ENERGIZED' : 'off'}${lines}${last}`);
  }
  out.push('', 'devices');
  for (const d of s.devices) {
    out.push(`  ${d.ok ? 'ok  ' : 'FAIL'} ${d.name}${d.detail ? `: ${d.detail}` : ''}`);
    // Older stations' status has no `input`.
    if (d.input != null) out.push(`       input: ${d.input.text}`);
  }
  out.push('', `events (newest last)`);
  for (const e of s.events) out.push(`  ${formatEvent(e)}`);
  out.push('', `signed in as ${s.technician.name} (${s.technician.scope})`);
  return out.join('\n');
}

/** The release line: what runs, whether it is proven, an upgrade pending, a known-bad release. */
export function formatRelease(r: NonNullable<StatusBody['release']>): string {
  const proof = r.proven === null ? '' : r.proven ? ' (proven)' : ' (NOT PROVEN yet: its proof was cut off or is under way)';
  const parts = [`running ${r.running}${proof}`];
  if (r.installed !== null && r.installed !== r.running) parts.push(`installed ${r.installed}`);
  if (r.pending !== null) parts.push(`UPGRADE PENDING: ${r.pending} (switches when the station is free)`);
  if (r.knownBad !== null) parts.push(`known bad: ${r.knownBad.version} (${r.knownBad.reason}; not tried again)`);
  return parts.join('; ');
}

/** Which config file version runs, whether the file on disk differs, and what waits for a restart. */
export function formatConfigFile(c: ConfigFileView): string {
  if (c.path === null) return 'built in (not from a file)';
  const parts = [`${c.path} version ${c.running ?? '?'}`];
  if (c.onDisk === null) parts.push('the file cannot be read now');
  else if (c.onDisk !== c.running) parts.push(`the file on disk is version ${c.onDisk}: not reloaded (stationctl reload)`);
  if (c.reloading) parts.push('a reload is running');
  if (c.restartNeeded.length > 0) parts.push(`RESTART NEEDED for ${c.restartNeeded.join(', ')} (systemctl restart pickup-station)`);
  return parts.join('; ');
}

/** One log line (pino JSON) as `time LEVEL msg key=value ...`. */
export function formatLogLine(line: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const levels: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
  const { time, level, msg, svc: _svc, pid: _pid, hostname: _host, ...rest } = o;
  const kv = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  return [text(time), pad(levels[Number(level)] ?? text(level), 5), text(msg), ...kv].join(' ');
}

export function formatSelfTest(r: SelfTestReport): string {
  const out = r.results.map(
    (x) =>
      `  box ${pad(String(x.box), 4)} pulse ${x.pulsed ? 'ok  ' : `FAILED (${x.error ?? '?'})`}  door ${x.door}${x.openedAfterMs === null ? '' : ` after ${x.openedAfterMs} ms`}`,
  );
  for (const s of r.skipped) out.push(`  box ${pad(String(s.box), 4)} not tested: ${s.reason}`);
  out.push(r.ok ? 'self-test passed' : 'self-test FAILED');
  return out.join('\n');
}

/** A live stream event as one line. */
export function formatStreamEvent(event: string, data: Record<string, unknown>): string {
  const at = typeof data['at'] === 'string' ? `${data['at']} ` : '';
  switch (event) {
    case 'event-done':
      return at + formatEvent(data['record'] as EventView);
    case 'event-sent':
      return `${at}sent /${String(data['endpoint'])} event=${String(data['eventId'])}`;
    case 'display':
      return `${at}display ${(data['lines'] as string[]).map((l) => `|${l}|`).join(' ')}`;
    case 'box':
      return `${at}box ${String(data['number'])} ${String(data['state'])}`;
    case 'lock':
      return `${at}lock ${String(data['number'])} ${data['energized'] ? 'energized' : 'off'}`;
    case 'mode':
      return `${at}mode ${String(data['mode'])}`;
    case 'alarm': {
      const alarm = data['alarm'] as { kind: string; detail: string };
      return `${at}ALARM ${data['active'] ? 'raised' : 'cleared'}: ${alarm.detail} (${alarm.kind})`;
    }
    case 'service':
      return `${at}service mode ${data['on'] ? 'on' : 'off'} (by ${String(data['by'])})`;
    case 'technician':
      return `${at}technician ${String(data['by'])}: ${String(data['action'])}${data['detail'] ? ` ${JSON.stringify(data['detail'])}` : ''}`;
    default:
      return `${at}${event} ${JSON.stringify(data)}`;
  }
}
