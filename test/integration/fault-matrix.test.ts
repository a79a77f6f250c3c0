/**
 * The fault matrix (docs/development.md, docs/decisions/0016): every endpoint × every fault between the station and its
 * server, on real sockets. The station is the field's: HTTPS to `https://localhost:PORT` trusting
 * the library's private CA (`server.caFile`, certificates made by openssl here), the real client,
 * runtime and technician port, simulated hardware. Each row starts a fresh station, brings it to
 * the point where the endpoint is sent (idle; for /cancel a deposit with its box open), arms the
 * fault until healed, makes the event happen, and checks:
 *
 * - what became of the event: answered (once, never resent), or resent with the same eventId until
 *   every attempt was used and the station deactivated;
 * - what the display shows then;
 * - what the technician status names as the cause (lastFailure) and what the log says;
 * - no box opened (not during the fault, not after healing), and the station recovers;
 * - the secrets check over the logs, the live streams, the status and the storage directory.
 *
 * Timeouts are short and from config (answer timeout 1 s, 3 attempts as the spec says, heartbeat
 * 1.5 s). Rows run four at a time: each waits on sockets and timers far more than it computes.
 *
 * FAULT_MATRIX_TABLE=<file> writes the observed matrix as a Markdown table.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/protocol/types.js';
import { faultProcesses, normalizeFault } from '../../src/reference-server/faults.js';
import { SEED_BARCODES, SEED_PIN_SINGLE } from '../../src/reference-server/seed.js';
import type { RequestRecord } from '../../src/reference-server/types.js';
import type { EventRecord, RuntimeEvent } from '../../src/station/runtime.js';
import { HAVE_OPENSSL } from '../support/certs.js';
import { filesUnder } from '../support/secrets.js';
import { faultCatalogue, makeFaultCerts, type FaultCerts, type FaultDef } from '../support/fault-catalogue.js';
import { startFaultStation, type FaultStation } from '../support/fault-station.js';
import { STATION, waitFor } from '../support/shared.js';

const ANSWER_TIMEOUT_MS = 1_000;
const ATTEMPTS = 3;
const HEARTBEAT_MS = 1_500;
const MESSAGE_MS = 6_000;
const ENDPOINTS: readonly Endpoint[] = ['state', 'item-identify', 'pin-enter', 'cancel'];
const FOREIGN = '0f0f0f0f-dead-4bad-8bad-f0f0f0f0f0f0';

type Outcome = 'resent, deactivated' | 'answered: exception' | 'answered: refused' | 'resent once, answered';

interface Expectation {
  readonly outcome: Outcome;
  /** What the status's lastFailure.reason (and the log) must say. */
  readonly cause: RegExp;
}

/** What each fault must lead to, whatever the endpoint. */
const EXPECTED: Readonly<Record<string, Expectation>> = {
  'late-answer': { outcome: 'resent, deactivated', cause: /^unanswered: no answer within the answer timeout$/ },
  refused: { outcome: 'resent, deactivated', cause: /^unanswered: connection refused \[ECONNREFUSED/ },
  'reset-mid-body': { outcome: 'resent, deactivated', cause: /^unanswered: connection reset .*\[ECONNRESET/ },
  dns: { outcome: 'resent, deactivated', cause: /^unanswered: server name not found \(DNS\) \[ENOTFOUND: .*pickup-server\.invalid\]$/ },
  'tls-unknown-ca': { outcome: 'resent, deactivated', cause: /^unanswered: TLS: the server's certificate is not signed by a trusted CA \(server\.caFile\)/ },
  'tls-other-host': {
    outcome: 'resent, deactivated',
    cause: /^unanswered: TLS: the server's certificate is for another host name \[ERR_TLS_CERT_ALTNAME_INVALID/,
  },
  'tls-stall': { outcome: 'resent, deactivated', cause: /^unanswered: no answer within the answer timeout$/ },
  'clock-behind': {
    outcome: 'resent, deactivated',
    cause: /^unanswered: board clock is behind: the server's certificate is not valid yet \(board clock \d{4}-/,
  },
  '5xx-exception': { outcome: 'answered: exception', cause: /^exception 500 IllegalStateException$/ },
  '5xx-bare': { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 503 text\/plain: not JSON$/ },
  '4xx-exception': { outcome: 'answered: exception', cause: /^exception 409 ActionInProgressException$/ },
  'html-502': { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 502 text\/html: not JSON$/ },
  'non-json': { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 200 text\/plain: not JSON$/ },
  'truncated-json': { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 200 application\/json: not JSON$/ },
  'empty-200': { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 200 application\/json: empty body$/ },
  'unknown-command': { outcome: 'answered: refused', cause: /^invalid: malformed command: type: / },
  'foreign-box': { outcome: 'answered: refused', cause: new RegExp(`^refused: (box-open|wait-for-closing): box ${FOREIGN} is not this station's$`) },
  redirect: { outcome: 'resent, deactivated', cause: /^unanswered: HTTP 307: a redirect, not followed/ },
  'huge-body': { outcome: 'resent, deactivated', cause: /^unanswered: .*(too large|limit|bytes)/i },
};

interface Observed {
  readonly endpoint: Endpoint;
  readonly fault: FaultDef;
  readonly outcome: string;
  readonly attempts: number;
  readonly display: readonly string[];
  readonly cause: string;
  readonly pulses: number;
}

const observed: Observed[] = [];
let certs: FaultCerts;

beforeAll(() => {
  if (HAVE_OPENSSL) certs = makeFaultCerts();
});

afterAll(() => {
  const file = process.env['FAULT_MATRIX_TABLE'];
  if (!file || observed.length === 0) return;
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const rows = [...observed].sort((a, b) => ENDPOINTS.indexOf(a.endpoint) - ENDPOINTS.indexOf(b.endpoint) || a.fault.name.localeCompare(b.fault.name));
  const lines = [
    '| endpoint | fault | outcome | attempts | display | technician status: last failure | boxes opened |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (o) => `| /${o.endpoint} | ${esc(o.fault.what)} | ${o.outcome} | ${o.attempts} | ${esc(o.display.join(' / '))} | ${esc(o.cause)} | ${o.pulses} |`,
    ),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
});

const ready = (fs: FaultStation, mode: 'idle' | 'closing'): Promise<true> =>
  waitFor(
    `${mode} with nothing in flight`,
    () => {
      const s = fs.wp.supervisor.station.runtime.snapshot();
      return s.mode.kind === mode && s.inFlight === null;
    },
    15_000,
  );

/** The next finished /state that was answered (the heartbeat timer has just restarted). */
function nextAnsweredState(fs: FaultStation): Promise<void> {
  return new Promise((resolve) => {
    const off = fs.wp.supervisor.station.runtime.onEvent((e) => {
      if (e.type === 'event-done' && e.record.endpoint === 'state' && !e.record.outcome.startsWith('unanswered')) {
        off();
        resolve();
      }
    });
  });
}

/** Make `endpoint`'s event happen now; the runtime sends it synchronously. */
function trigger(fs: FaultStation, endpoint: Endpoint): void {
  switch (endpoint) {
    case 'state':
      return; // the next heartbeat
    case 'item-identify':
      return fs.sim.scanBarcode(SEED_BARCODES[1]);
    case 'pin-enter':
      return fs.sim.typePin(SEED_PIN_SINGLE);
    case 'cancel':
      return fs.sim.pressCancel();
  }
}

/** Faults that hit one request only: the resend (same eventId) is answered as if nothing happened. */
const ONCE = ['late-answer', 'reset-mid-body', 'truncated-json', '5xx-bare', 'html-502'];
/** What each endpoint's event is answered with when all is well, and the box it opens. */
const NORMAL: Readonly<Record<Endpoint, { outcome: string; opens: number | null }>> = {
  state: { outcome: 'wait-for-input', opens: null },
  'item-identify': { outcome: 'box-open', opens: 2 }, // SEED_BARCODES[1] -> box 2
  'pin-enter': { outcome: 'box-open', opens: 4 }, // SEED_PIN_SINGLE -> box 4
  cancel: { outcome: 'wait-for-closing', opens: null },
};

async function runRow(endpoint: Endpoint, fault: FaultDef, once = false): Promise<void> {
  const want: Expectation | undefined = once ? { outcome: 'resent once, answered', cause: /./ } : EXPECTED[fault.name];
  if (want === undefined) throw new Error(`no expectation for ${fault.name}`);
  const fs = await startFaultStation({
    station: STATION,
    certs,
    server: { answerTimeoutMs: ANSWER_TIMEOUT_MS, attempts: ATTEMPTS },
    timing: { heartbeatIntervalMs: HEARTBEAT_MS, messageMs: MESSAGE_MS, doorOpenTimeoutMs: 2_000, duplicateScanWindowMs: 0 },
  });
  try {
    const { runtime } = fs.wp.supervisor.station;
    const messages = fs.config.messages;
    await ready(fs, 'idle');
    const before: 'idle' | 'closing' = endpoint === 'cancel' ? 'closing' : 'idle';
    if (endpoint === 'cancel') {
      fs.sim.scanBarcode(SEED_BARCODES[0]);
      await ready(fs, 'closing');
    }
    // Arm right after an answered /state: a heartbeat is then a whole interval away, so a fault that
    // hits every endpoint meets the row's event first.
    await nextAnsweredState(fs);
    const pulsesBefore = fs.sim.locks.pulses.length;
    const seqBefore = fs.faulty.server.lastSeq;
    const sent: { endpoint: Endpoint; eventId: string }[] = [];
    const done = new Map<string, EventRecord>();
    // The station right after it took in the row's outcome: the runtime reports event-done and then
    // feeds the outcome to the core in the same tick, so a microtask sees the result, before a
    // heartbeat that follows can change it again.
    let after: { mode: string; display: readonly string[] } | null = null;
    const off = runtime.onEvent((e: RuntimeEvent) => {
      if (e.type === 'event-sent') sent.push({ endpoint: e.endpoint, eventId: e.eventId });
      if (e.type === 'event-done') {
        done.set(e.record.eventId, e.record);
        if (e.record.endpoint === endpoint && after === null && sent.some((s) => s.eventId === e.record.eventId && s.endpoint === endpoint)) {
          queueMicrotask(() => (after = { mode: runtime.snapshot().mode.kind, display: fs.sim.display.lastShown() }));
        }
      }
    });
    await fs.faulty.apply(fault, endpoint, once ? { times: 1 } : {});
    trigger(fs, endpoint);
    const row = await waitFor(`/${endpoint} sent`, () => sent.find((s) => s.endpoint === endpoint), HEARTBEAT_MS + 2_000);
    const record = await waitFor(`/${endpoint} finished`, () => done.get(row.eventId), ATTEMPTS * ANSWER_TIMEOUT_MS + 5_000);
    off();
    const outcome = await waitFor('the outcome taken in', () => after, 1_000);
    const display = outcome.display;
    const status = await fs.status();
    const title = `/${endpoint} × ${fault.name}`;

    // The event: answered once, or resent with the same eventId until deactivated.
    const onWire = (): RequestRecord[] => fs.faulty.server.requests.filter((r) => r.seq > seqBefore && r.eventId === row.eventId);
    const unansweredLines = fs.logs.filter((l) => l.includes('"msg":"event unanswered"') && l.includes(row.eventId));
    switch (want.outcome) {
      case 'resent once, answered': {
        // The resend carries the same eventId and body; the server acts on the event once.
        expect(record.attempts, title).toBe(2);
        const wire = onWire();
        expect(wire.length, title).toBe(2);
        expect(new Set(wire.map((r) => JSON.stringify(r.body))).size, title).toBe(1);
        // A fault after the server acted: the resend is answered from its cache; before: acted on then.
        const acted = 'server' in fault.fault && faultProcesses(normalizeFault(fault.fault.server));
        expect(wire[1]?.resendOf ?? null, title).toBe(acted ? (wire[0]?.seq ?? -1) : null);
        expect(record.outcome, title).toBe(NORMAL[endpoint].outcome);
        expect(outcome.mode, title).not.toBe('deactivated');
        const answered = wire.at(-1)?.response as { displayMessages?: string[] } | undefined;
        expect(display, title).toEqual(answered?.displayMessages);
        const opens = NORMAL[endpoint].opens;
        await waitFor('the pulse', () => fs.sim.locks.pulses.length >= pulsesBefore + (opens === null ? 0 : 1), 2_000);
        expect(
          fs.sim.locks.pulses.slice(pulsesBefore).map((p) => p.box),
          title,
        ).toEqual(opens === null ? [] : [opens]);
        await fs.faulty.heal();
        await fs.status();
        expect(fs.leaks({ pins: [SEED_PIN_SINGLE], identifiers: SEED_BARCODES.slice(0, 2) }), title).toEqual([]);
        observed.push({
          endpoint,
          fault: { ...fault, what: `${fault.what}, once` },
          outcome: want.outcome,
          attempts: record.attempts,
          display,
          cause: record.outcome,
          pulses: fs.sim.locks.pulses.length - pulsesBefore,
        });
        return;
      }
      case 'resent, deactivated': {
        expect(record.attempts, title).toBe(ATTEMPTS);
        expect(new Set(record.traceIds).size, title).toBe(ATTEMPTS);
        expect(unansweredLines.length, title).toBe(ATTEMPTS);
        // Server faults: the server saw every attempt, each with the same eventId and body.
        if ('server' in fault.fault) {
          const wire = onWire();
          expect(wire.length, title).toBe(ATTEMPTS);
          expect(new Set(wire.map((r) => JSON.stringify(r.body))).size, title).toBe(1);
        }
        expect(outcome.mode, title).toBe('deactivated');
        expect(display, title).toEqual(messages.stationOff);
        break;
      }
      case 'answered: exception': {
        expect(record.attempts, title).toBe(1);
        expect(onWire().length, title).toBe(1);
        expect(outcome.mode, title).toBe(before);
        const shown =
          'server' in fault.fault && typeof fault.fault.server === 'object' && 'displayMessages' in fault.fault.server
            ? fault.fault.server.displayMessages
            : undefined;
        expect(display, title).toEqual(shown);
        break;
      }
      case 'answered: refused': {
        expect(record.attempts, title).toBe(1);
        expect(onWire().length, title).toBe(1);
        expect(outcome.mode, title).toBe(before);
        expect(display, title).toEqual(messages.serverError);
        // The next /state reports it (DOWN, errorMessage naming the endpoint), without a storm.
        const report = await fs.faulty.server.waitForRequest(
          (r) => r.endpoint === 'state' && r.seq > seqBefore && (r.body as { st?: string }).st === 'DOWN',
          HEARTBEAT_MS + 3_000,
        );
        expect((report.body as { errorMessage: string }).errorMessage, title).toContain(`rejected command to /${endpoint}`);
        break;
      }
    }

    // The cause, named in the status and the log.
    expect(record.outcome, title).toMatch(want.cause);
    expect(status.lastFailure?.reason, title).toMatch(want.cause);
    // The typed kind the status decides by is the one its text names.
    expect(record.failure, title).toBe(/^\w+/.exec(record.outcome)?.[0]);
    expect(status.lastFailure?.kind, title).toBe(record.failure);
    expect(
      status.events.some((e) => e.eventId === row.eventId && want.cause.test(e.outcome)),
      title,
    ).toBe(true);
    const cause = status.lastFailure?.reason ?? '';
    if (fault.name === 'clock-behind') expect(fs.logs.join('')).toContain('board clock is behind');

    // Healed, the station comes back; no box was opened at any point.
    expect(fs.sim.locks.pulses.length, title).toBe(pulsesBefore);
    await fs.faulty.heal();
    await ready(fs, before);
    expect(fs.sim.locks.pulses.length, title).toBe(pulsesBefore);

    // Secrets: logs, live streams, technician status, storage directory (the journal is there).
    await fs.status();
    expect(filesUnder(fs.storageDir).length, 'files in storage.directory').toBeGreaterThan(0);
    expect(fs.leaks({ pins: [SEED_PIN_SINGLE], identifiers: SEED_BARCODES.slice(0, 2) }), title).toEqual([]);
    observed.push({ endpoint, fault, outcome: want.outcome, attempts: record.attempts, display, cause, pulses: fs.sim.locks.pulses.length - pulsesBefore });
  } finally {
    await fs.stop();
  }
}

describe.runIf(HAVE_OPENSSL)('fault matrix', () => {
  for (const endpoint of ENDPOINTS) {
    describe.concurrent(`/${endpoint}`, () => {
      for (const fault of faultCatalogue(ANSWER_TIMEOUT_MS)) {
        it(`${fault.what}: ${EXPECTED[fault.name]?.outcome ?? '?'}`, () => runRow(endpoint, fault), 40_000);
      }
      for (const fault of faultCatalogue(ANSWER_TIMEOUT_MS).filter((f) => ONCE.includes(f.name))) {
        it(
          `${fault.what}, once: resent once with the same eventId, answered${NORMAL[endpoint].opens === null ? '' : ', the box opened once'}`,
          () => runRow(endpoint, fault, true),
          40_000,
        );
      }
    });
  }
});
