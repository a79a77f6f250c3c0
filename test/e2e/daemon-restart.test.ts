/**
 * Restart truth (docs/decisions/0008) with the real daemon: SIGKILL at each step of a deposit, a
 * pickup, a cancel and a technician open, then a restart, checked against the reference server's
 * record of requests.
 *
 * Each step is reached deterministically: the reference server's faults hold a request (`drop`
 * without processing: the request never reached the server; `delay`: in flight, the server acted);
 * the technician port injects the scan, the PIN or the cancel press and opens boxes; the test opens
 * and closes doors by writing the simulated hardware's file (doors never spring open on their own
 * here), and watches the lock outputs in the same file. The kill comes once the step is observed.
 *
 * After the restart, for every step:
 * - the first request is a /state, with the doors the sensors (the file) show (its time from
 *   process start is printed in the matrix; the bench's startup figure is the one to quote);
 * - it is DOWN with an errorMessage naming the cut-short action; the next /state is UP;
 * - no lock is pulsed, no event of the earlier run is sent again;
 * - a librarian or reader who was mid-action sees a message.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { SEED_BARCODES, SEED_PIN_MULTI, SEED_PIN_SINGLE, type RequestRecord } from '../../src/reference-server/index.js';
import { DaemonRig, type DaemonProcess } from '../support/daemon.js';
import { box, STATION } from '../support/shared.js';
import { filesUnder, findLeaksIn } from '../support/secrets.js';

const CONFIG: Partial<ConfigInput> = {
  // A second /state (UP) follows soon; the technician reads the notice before it goes.
  timing: { heartbeatIntervalMs: 2_000, messageMs: 15_000, doorOpenTimeoutMs: 10_000 },
  // Long pulses so "mid-pulse" can be observed; doors never spring open by themselves.
  locks: { pulseMs: 3_000 },
  hardware: { kind: 'simulated', doorSpringMs: 60_000 },
};
const DELAY = { kind: 'delay', ms: 120_000 } as const;
const NOT_REACHED = { kind: 'drop', processed: false } as const;

let rig: DaemonRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

type Flow = 'deposit' | 'pickup' | 'cancel' | 'technician open';
interface Step {
  readonly flow: Flow;
  readonly step: string;
  /** Drive the running daemon to the step; resolves when the kill may come. */
  readonly reach: (rig: DaemonRig) => Promise<void>;
  /** The first /state's errorMessage after the restart. */
  readonly message: RegExp;
  /** What the person at the station sees after the first answer: a messages key, or null for nothing special. */
  readonly notice: 'restartedNotOpened' | 'restartedOpened' | null;
}

const matrix: { flow: Flow; step: string; message: string; ms: number; outcome: string }[] = [];
afterAll(() => {
  // The restart matrix, printed row by row (npx vitest run test/e2e/daemon-restart.test.ts).
  console.error(
    [
      '| flow | step | first /state after restart | ms to first /state |',
      '|---|---|---|---|',
      ...matrix.map((m) => `| ${m.flow} | ${m.step} | ${m.outcome}: ${m.message} | ${m.ms.toFixed(0)} |`),
    ].join('\n'),
  );
});

const stateOf = (r: RequestRecord): { st: string; errorMessage: string | null; boxes: { id: string; st: string }[] } => r.body as never;
const mode = (s: Record<string, unknown>): unknown => s['mode'];

// --- ways to reach a step ---------------------------------------------------------------------
const scan = (rig: DaemonRig) => rig.tech('POST', '/api/inject/scan', { value: SEED_BARCODES[0] });
const pin = (rig: DaemonRig, p: string = SEED_PIN_SINGLE) => rig.tech('POST', '/api/inject/pin', { pin: p });
const endpointFor = (flow: Flow): string => (flow === 'pickup' ? 'pin-enter' : 'item-identify');
const startAction = (flow: Flow) => (flow === 'pickup' ? pin : scan);
const boxOf = (flow: Flow): number => (flow === 'pickup' ? 4 : flow === 'technician open' ? 3 : 1);

/** The event's request held by `fault`; resolves once the server recorded it. */
async function eventHeld(rig: DaemonRig, flow: Flow, fault: typeof DELAY | typeof NOT_REACHED): Promise<void> {
  const endpoint = endpointFor(flow);
  rig.server.setFault(endpoint as 'pin-enter', fault, { times: 1 });
  const seq = rig.server.lastSeq;
  await startAction(flow)(rig);
  await rig.server.waitForRequest((r) => r.endpoint === endpoint && r.fault !== null, 10_000, { afterSeq: seq });
}

/** The action's lock is energized and its door was pulled open (a person at the box). */
async function opened(rig: DaemonRig, flow: Flow): Promise<void> {
  const n = boxOf(flow);
  if (flow === 'technician open') void rig.tech('POST', `/api/boxes/${n}/open`, {}).catch(() => undefined);
  else await startAction(flow)(rig);
  await rig.simUntil((f) => f.locks[n] === true, `lock ${n} energized`);
}

/** Door opened with the /state reporting it held in flight. */
async function openNotReported(rig: DaemonRig, flow: Flow): Promise<void> {
  await opened(rig, flow);
  rig.server.setFault('state', DELAY);
  const seq = rig.server.lastSeq;
  rig.setDoor(boxOf(flow), 'OPEN');
  await rig.server.waitForRequest((r) => r.endpoint === 'state' && stateOf(r).boxes.some((b) => b.id === box(boxOf(flow)) && b.st === 'OPEN'), 10_000, {
    afterSeq: seq,
  });
}

/** Door open and reported: the station waits for it to be closed. */
async function waitingForClosing(rig: DaemonRig, flow: Flow): Promise<void> {
  await opened(rig, flow);
  rig.setDoor(boxOf(flow), 'OPEN');
  // Left `opening` only once the /state reporting the door was answered (and journaled).
  await rig.statusUntil(
    (s) => mode(s) !== 'opening' && s['inFlight'] === null && (s['boxes'] as { door: string }[])[boxOf(flow) - 1]?.door === 'OPEN',
    'door reported open',
  );
}

/** From waiting for closing: the door closed, the /state reporting it held in flight. */
async function closedNotReported(rig: DaemonRig, flow: Flow): Promise<void> {
  await waitingForClosing(rig, flow);
  await closeHeld(rig, boxOf(flow));
}

async function closeHeld(rig: DaemonRig, n: number): Promise<void> {
  rig.server.setFault('state', DELAY);
  const seq = rig.server.lastSeq;
  rig.setDoor(n, 'CLOSED');
  await rig.server.waitForRequest((r) => r.endpoint === 'state' && stateOf(r).boxes.some((b) => b.id === box(n) && b.st === 'CLOSED'), 15_000, {
    afterSeq: seq,
  });
}

/** A deposit waiting for closing, cancellable; then the cancel pressed with its request held by `fault`. */
async function cancelHeld(rig: DaemonRig, fault: typeof DELAY | typeof NOT_REACHED): Promise<void> {
  await waitingForClosing(rig, 'deposit');
  rig.server.setFault('cancel', fault, { times: 1 });
  const seq = rig.server.lastSeq;
  await rig.tech('POST', '/api/inject/cancel', {});
  await rig.server.waitForRequest((r) => r.endpoint === 'cancel', 10_000, { afterSeq: seq });
}

const ev = '[0-9a-f-]{36}';
const steps: Step[] = [];
for (const flow of ['deposit', 'pickup'] as const) {
  const endpoint = endpointFor(flow);
  const what = flow === 'deposit' ? `/item-identify for \\*\\*\\*017 \\(14\\)` : '/pin-enter';
  const n = boxOf(flow);
  steps.push(
    {
      flow,
      step: '1 before the request left',
      reach: (r) => eventHeld(r, flow, NOT_REACHED),
      message: new RegExp(`^restarted during ${flow}: ${what} \\(event ${ev}, 1 attempt\\) not answered, not resent; no box opened$`),
      notice: 'restartedNotOpened',
    },
    {
      flow,
      step: '2 in flight',
      reach: (r) => eventHeld(r, flow, DELAY),
      message: new RegExp(`^restarted during ${flow}: ${what} \\(event ${ev}, 1 attempt\\) not answered, not resent; no box opened$`),
      notice: 'restartedNotOpened',
    },
    {
      flow,
      step: '4 mid-pulse',
      reach: (r) =>
        opened(r, flow)
          .then(() => r.setDoor(n, 'OPEN'))
          .then(() => r.simUntil((f) => f.doors[n] === 'OPEN' && f.locks[n] === true, 'door open mid-pulse'))
          .then(() => undefined),
      message: new RegExp(`^restarted during ${flow}: box ${n} opened, still open \\(event ${ev}\\)$`),
      notice: 'restartedOpened',
    },
    {
      flow,
      step: '5 door OPEN, /state not answered',
      reach: (r) => openNotReported(r, flow),
      message: new RegExp(`^restarted during ${flow}: box ${n} opened, still open \\(event ${ev}\\)$`),
      notice: 'restartedOpened',
    },
    {
      flow,
      step: '6 waiting for closing',
      reach: (r) => waitingForClosing(r, flow),
      message: new RegExp(`^restarted during ${flow}: box ${n} open, waiting for closing \\(event ${ev}\\)$`),
      notice: 'restartedOpened',
    },
    {
      flow,
      step: '7 door closed, /state not answered',
      reach: (r) => closedNotReported(r, flow),
      message: new RegExp(`^restarted during ${flow}: box ${n} opened, closed while stopped \\(event ${ev}\\)$`),
      notice: null,
    },
  );
  void endpoint;
}
steps.splice(8, 0, {
  flow: 'pickup',
  step: '3 box-open answered, before the pulse (box 6; box 5 mid-pulse)',
  reach: async (r) => {
    await pin(r, SEED_PIN_MULTI);
    await r.simUntil((f) => f.locks[5] === true, 'lock 5 energized');
    r.setDoor(5, 'OPEN');
    await r.simUntil((f) => f.doors[5] === 'OPEN' && f.locks[5] === true && f.locks[6] === false, 'door 5 open while its lock is on, lock 6 not yet');
  },
  message: new RegExp(`^restarted during pickup: box 5 opened, still open, box 6 was not opened \\(event ${ev}\\)$`),
  notice: 'restartedOpened',
});
steps.push(
  {
    flow: 'cancel',
    step: '1 before the request left',
    reach: (r) => cancelHeld(r, NOT_REACHED),
    message: new RegExp(
      `^restarted during cancel: /cancel \\(event ${ev}, 1 attempt\\) not answered, not resent; restarted during deposit: box 1 open, waiting for closing \\(event ${ev}\\)$`,
    ),
    notice: 'restartedOpened',
  },
  {
    flow: 'cancel',
    step: '2 in flight',
    reach: (r) => cancelHeld(r, DELAY),
    message: new RegExp(
      `^restarted during cancel: /cancel \\(event ${ev}, 1 attempt\\) not answered, not resent; restarted during deposit: box 1 open, waiting for closing \\(event ${ev}\\)$`,
    ),
    notice: 'restartedOpened',
  },
  {
    flow: 'cancel',
    step: '7 cancel answered, door closed, /state not answered',
    reach: async (r) => {
      await waitingForClosing(r, 'deposit');
      const seq = r.server.lastSeq;
      await r.tech('POST', '/api/inject/cancel', {});
      await r.server.waitForRequest((q) => q.endpoint === 'cancel' && q.status === 200, 10_000, { afterSeq: seq });
      await r.statusUntil((s) => s['inFlight'] === null && mode(s) === 'closing', 'cancel answered');
      await closeHeld(r, 1);
    },
    message: new RegExp(`^restarted during deposit: box 1 opened, closed while stopped \\(event ${ev}\\)$`),
    notice: null,
  },
  {
    flow: 'technician open',
    step: '4 mid-pulse',
    reach: (r) =>
      opened(r, 'technician open')
        .then(() => r.setDoor(3, 'OPEN'))
        .then(() => r.simUntil((f) => f.doors[3] === 'OPEN' && f.locks[3] === true, 'door open mid-pulse'))
        .then(() => undefined),
    message: /^restarted during technician open: box 3 opened, still open$/,
    notice: null,
  },
  {
    flow: 'technician open',
    step: '5 door OPEN, /state not answered',
    reach: (r) => openNotReported(r, 'technician open'),
    message: /^restarted during technician open: box 3 opened, still open$/,
    notice: null,
  },
  {
    flow: 'technician open',
    step: '6 door open, reported',
    reach: (r) => waitingForClosing(r, 'technician open'),
    message: /^restarted during technician open: box 3 open, waiting for closing$/,
    notice: null,
  },
  {
    flow: 'technician open',
    step: '7 door closed, /state not answered',
    reach: (r) => closedNotReported(r, 'technician open'),
    message: /^restarted during technician open: box 3 opened, closed while stopped$/,
    notice: null,
  },
);

describe('SIGKILL at each step, then a restart', () => {
  it.each(steps.map((s) => [`${s.flow}: ${s.step}`, s] as const))(
    '%s',
    async (_name, s) => {
      rig = await DaemonRig.create(CONFIG);
      const before = rig.start();
      await rig.idle();
      const streams = { 'events stream (killed run)': rig.stream('/api/events/stream'), 'logs stream (killed run)': rig.stream('/api/logs/stream') };
      await s.reach(rig);

      // kill -9: no handler runs, no lock is driven OFF by the process, nothing is flushed by it.
      before.child.kill('SIGKILL');
      expect((await before.exited).signal).toBe('SIGKILL');
      rig.server.clearFaults();
      const killSeq = rig.server.lastSeq;
      const oldEvents = new Set(rig.server.requests.map((r) => r.eventId));
      const doorsNow = rig.sim().doors;

      const after: DaemonProcess = rig.start();
      const first = await rig.server.waitForRequest(() => true, 10_000, { afterSeq: killSeq });
      const ms = first.at - after.spawnedAt;
      expect(first.endpoint).toBe('state');
      const body = stateOf(first);
      matrix.push({ flow: s.flow, step: s.step, message: body.errorMessage ?? '(none)', ms, outcome: body.st });
      expect(body.st).toBe('DOWN');
      expect(body.errorMessage).toMatch(s.message);
      // The doors as the sensors read them.
      expect(body.boxes).toEqual(rig.configInput.station.boxes.map((b) => ({ id: b.id, st: doorsNow[b.number] })));

      const notice = await rig.statusUntil((st) => st['mode'] !== 'starting', 'first answer');
      const streamsAfter = { 'events stream (restarted run)': rig.stream('/api/events/stream'), 'logs stream (restarted run)': rig.stream('/api/logs/stream') };
      if (s.notice !== null) {
        const expected = {
          restartedNotOpened: ['The station restarted', 'please scan or enter your PIN again'],
          restartedOpened: ['The station restarted', 'please close the box when done'],
        }[s.notice];
        expect(notice['display']).toEqual(expected);
      } else {
        expect(notice['display']).not.toEqual(expect.arrayContaining(['The station restarted']));
      }

      const second = await rig.server.waitForRequest((r) => r.endpoint === 'state', 10_000, { afterSeq: first.seq });
      expect(stateOf(second)).toMatchObject({ st: 'UP', errorMessage: null });

      const newRun = rig.since(killSeq);
      expect(newRun.filter((r) => oldEvents.has(r.eventId))).toEqual([]);
      expect(newRun.filter((r) => r.endpoint !== 'state')).toEqual([]);
      expect(after.lines().filter((l) => l.msg === 'pulsing lock')).toEqual([]);
      expect(Object.values(rig.sim().locks).every((on) => !on)).toBe(true);

      // Secrets (docs/decisions/0020): both runs' logs, the journal and every other file in the state
      // directory, the technician status and the live streams.
      const status = await rig.tech('GET', '/api/status');
      const sources: Record<string, string> = {
        'log (killed run)': before.out() + before.err(),
        'log (restarted run)': after.out() + after.err(),
        'technician status': JSON.stringify(status.body),
        ...Object.fromEntries([...Object.entries(streams), ...Object.entries(streamsAfter)].map(([k, v]) => [k, v.text()])),
        ...Object.fromEntries(filesUnder(rig.stateDir)),
      };
      expect(Object.keys(sources).some((k) => k.startsWith(rig!.stateDir))).toBe(true);
      expect(findLeaksIn(sources, { stationId: STATION.id, password: STATION.password, tokens: [rig.token], pins: [SEED_PIN_SINGLE, SEED_PIN_MULTI] })).toEqual(
        [],
      );
      // "Within 1 s of process start" is a speed figure: `npm run bench` measures it (startup:
      // process start -> first /state, the same path with the journal read back; its verdict
      // "start -> first /state p99 < 1 s"). Never a timed assertion here (the project's rule); this
      // run's figure is printed in the matrix above.
    },
    60_000,
  );
});
