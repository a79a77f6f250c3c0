#!/usr/bin/env node
// The virtual board's machine: one QEMU command line for every run (scenario.mjs, apt.sh), its
// power (a cut is SIGKILL to QEMU: what only the guest's RAM held is gone) and its ssh control
// connection. A run keeps what it booted in a state file, so that another process (e2e.sh's
// --power, through this file's command line) can cut the power and boot the same board again:
//
//   node scripts/board/qemu.mjs STATE.json cut     SIGKILL to QEMU, wait until it is gone
//   node scripts/board/qemu.mjs STATE.json boot    the same machine again; returns once ssh answers
//   node scripts/board/qemu.mjs STATE.json down    returns once the guest went down by itself (a
//                                                  reboot it made: -no-reboot ends QEMU), at most
//                                                  BOARD_DOWN_LIMIT_S seconds (900)
//   node scripts/board/qemu.mjs STATE.json qmp JSON  one QMP command ({"execute":..,"arguments":..})
//                                                  to the running machine; prints its return
//
// STATE.json: { args, pidfile, serial, ssh: [ssh arguments up to the host], bootLimitMs,
//               qmp: the QMP socket, tpm: { dir, sock } or null,
//               bootDisk: the boot partition's image or absent, cmdlineExtra: the board's own words }.
// The serial console (the one inside a station's cabinet) is written to `serial`; with `serialSock`
// it is also a socket a test connects to and types into, as a technician's serial cable would.
// The board boots as a Raspberry Pi does: its firmware reads the kernel's command line from
// cmdline.txt on the boot partition (a small ext2 disk, the guest's /boot/firmware, where install.sh
// writes it as on a Pi). Each boot reads it again (debugfs, from the image: QEMU is not running), so
// a parameter the guest added applies at its next boot and not before.
// The board has what a public station's board has beside its GPIO: a USB host controller (QEMU's
// xHCI, bus `xhci.0`, where a test plugs and unplugs devices at run time through QMP's device_add
// and device_del), a display (virtio-gpu: the kiosk's screen, read back by QMP's screendump) and a
// TPM 2.0 (QEMU's tpm-tis-device backed by swtpm on the host, its state a folder of the run's).
// The ssh control socket lives in BOARD_SOCK (a short folder under /tmp): a socket path is limited
// to 108 bytes, and a checkout under a long CI path would not fit.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The kernel's command line the image boots with: the boot partition's first cmdline.txt. */
export const BASE_CMDLINE = 'root=/dev/vda rw console=ttyAMA0 net.ifnames=0 quiet loglevel=4';

/** QEMU's arguments: `-M virt` arm64 under TCG, the disk as a qcow2 overlay, the user network. */
export function qemuArgs({
  qmp,
  tpmSock = null,
  kdir,
  disk,
  sshPort,
  simPort = null,
  serial,
  serialSock = null,
  pidfile,
  cmdlineExtra = '',
  bootDisk = null,
  devices = [],
  smp = process.env.BOARD_SMP ?? '2',
  mem = process.env.BOARD_MEM ?? '2048',
  // TCG's translation-block cache in MiB (QEMU's default when unset); for measuring its effect.
  tbSize = process.env.BOARD_TB_SIZE ?? '',
}) {
  const net = [`user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${sshPort}-:22`];
  // The reference server on the host's loopback, reached as http://10.0.2.100 (scripts/board/README.md).
  if (simPort !== null) net.push(`guestfwd=tcp:10.0.2.100:80-cmd:socat - TCP:127.0.0.1:${simPort}`);
  return [
    ...['-M', 'virt', '-accel', `tcg,thread=multi${tbSize ? `,tb-size=${tbSize}` : ''}`, '-cpu', 'cortex-a72', '-smp', smp, '-m', mem],
    ...['-display', 'none', '-monitor', 'none', '-qmp', `unix:${qmp},server=on,wait=off`, '-no-reboot'],
    // Everything the guest writes to the serial port reaches the file, connected or not.
    ...(serialSock === null
      ? ['-serial', `file:${serial}`]
      : ['-chardev', `socket,id=serial0,path=${serialSock},server=on,wait=off,logfile=${serial}`, '-serial', 'chardev:serial0']),
    ...['-device', 'qemu-xhci,id=xhci', '-device', 'virtio-gpu-pci'],
    ...(tpmSock === null
      ? []
      : ['-chardev', `socket,id=chrtpm,path=${tpmSock}`, '-tpmdev', 'emulator,id=tpm0,chardev=chrtpm', '-device', 'tpm-tis-device,tpmdev=tpm0']),
    ...['-kernel', `${kdir}/vmlinuz`, '-initrd', `${kdir}/initrd.img`],
    ...['-append', `${BASE_CMDLINE}${cmdlineExtra}`],
    // cache=writeback: the guest sees a volatile write cache and flushes it (ext4 commits, fsync);
    // QEMU passes each flush to the image (fdatasync). A SIGKILL to QEMU loses what only the guest's
    // RAM held (its page cache), as a power cut does. scripts/board/README.md says what this cannot show.
    ...['-drive', `file=${disk},if=none,id=d0,format=qcow2,cache=writeback,aio=threads`, '-device', 'virtio-blk-pci,drive=d0'],
    ...(bootDisk === null ? [] : ['-drive', `file=${bootDisk},if=none,id=d1,format=raw,cache=writeback,aio=threads`, '-device', 'virtio-blk-pci,drive=d1']),
    // Devices present from power-on (a part's own boot): usb-kbd, usb-storage on the xHCI.
    ...devices,
    ...['-netdev', net.join(','), '-device', 'virtio-net-pci,netdev=n0', '-device', 'virtio-rng-pci'],
    ...['-pidfile', pidfile, '-daemonize'],
  ];
}

/** ssh arguments up to and including the host: one multiplexed connection, in a short folder. */
export function sshArgs({ board, sshPort, sock = process.env.BOARD_SOCK ?? '/tmp' }) {
  return [
    ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-o', 'ConnectTimeout=10', '-o', 'BatchMode=yes'],
    ...[
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${sock}/ssh-%p.sock`,
      '-o',
      'ControlPersist=600',
      '-o',
      'ServerAliveInterval=5',
      '-o',
      'ServerAliveCountMax=6',
    ],
    ...['-i', `${board}/ssh/id_ed25519`, '-p', String(sshPort), 'root@127.0.0.1'],
  ];
}

/** QEMU's pid from its pidfile; null once QEMU is gone (it removes the file when it exits). */
export const qemuPid = (pidfile) => (existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8')) : null);
export const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const tail = (f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-30).join('\n') : '');

/**
 * The board's TPM: swtpm on the host, its state in `dir` (the TPM's non-volatile memory: it lives
 * across power cuts as a TPM's does; another folder is another TPM). Started before each boot; it
 * ends when QEMU closes its control channel (--terminate).
 */
export function startTpm({ dir, sock }) {
  mkdirSync(dir, { recursive: true });
  rmSync(sock, { force: true });
  execFileSync(
    'swtpm',
    [
      'socket',
      '--tpm2',
      '--tpmstate',
      `dir=${dir}`,
      '--ctrl',
      `type=unixio,path=${sock}`,
      '--terminate',
      '--daemon',
      '--pid',
      `file=${dir}/swtpm.pid`,
      '--log',
      `file=${dir}/swtpm.log,level=1`,
    ],
    {
      stdio: 'ignore',
    },
  );
}

/** The kernel's command line the board's firmware takes from its boot partition: cmdline.txt's first line. */
export function bootCmdline(bootDisk) {
  const text = execFileSync('debugfs', ['-R', 'cat /cmdline.txt', bootDisk], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const line = text.split('\n')[0].trim();
  if (line === '') throw new Error(`no cmdline.txt on the boot partition ${bootDisk}`);
  return line;
}

/** A boot partition (ext2, label bootfs) holding cmdline.txt with `cmdline`: made once per run. */
export function makeBootDisk(file, cmdline) {
  const dir = `${file}.d`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/cmdline.txt`, `${cmdline}\n`);
  rmSync(file, { force: true });
  execFileSync('mkfs.ext2', ['-q', '-F', '-L', 'bootfs', '-d', dir, file, '8M'], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
}

/** QEMU's arguments with the kernel's command line as the boot partition says it now. */
function argsAtBoot(state) {
  if (!state.bootDisk) return state.args;
  const args = [...state.args];
  const at = args.indexOf('-append');
  args[at + 1] = `${bootCmdline(state.bootDisk)}${state.cmdlineExtra ?? ''}`;
  return args;
}

/** Start QEMU and wait for ssh; the boot's seconds. Keeps STATE for cut/boot from elsewhere. */
export async function boot(state, stateFile = null) {
  if (stateFile !== null) writeFileSync(stateFile, JSON.stringify(state));
  const t = performance.now();
  if (state.tpm) startTpm(state.tpm);
  execFileSync('qemu-system-aarch64', argsAtBoot(state), { stdio: ['ignore', 'ignore', 'pipe'] });
  const pid = qemuPid(state.pidfile);
  for (;;) {
    if (!alive(pid)) throw new Error(`QEMU exited during boot; serial: ${tail(state.serial)}`);
    try {
      execFileSync('ssh', [...state.ssh, 'true'], { stdio: 'ignore', timeout: 15_000 });
      break;
    } catch {
      await sleep(1000);
    }
    if (performance.now() - t > (state.bootLimitMs ?? 600_000))
      throw new Error(`no ssh after ${(state.bootLimitMs ?? 600_000) / 1000} s; serial: ${tail(state.serial)}`);
  }
  return (performance.now() - t) / 1000;
}

/**
 * The emulator's CPU seconds (user + system) so far, from /proc: what a boot of the board cost the
 * host, which the run's wall time hides when other work shares the cores. Null once it is gone.
 */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5) (utime, stime), counted after the command's closing parenthesis.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
/** The file where each boot's CPU seconds are added as it ends (a cut): beside the pidfile. */
export const cpuLog = (state) => `${dirname(state.pidfile)}/qemu-cpu.log`;

/** The power cut: SIGKILL to QEMU (and its TPM); the ssh control connection goes with it. */
export async function cut(state) {
  const pid = qemuPid(state.pidfile);
  const cpu = cpuSeconds(pid);
  if (cpu !== null) appendFileSync(cpuLog(state), `${cpu}\n`);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await sleep(50);
  const tpmPidfile = state.tpm ? `${state.tpm.dir}/swtpm.pid` : null;
  if (tpmPidfile !== null && existsSync(tpmPidfile)) {
    const tpmPid = qemuPid(tpmPidfile);
    if (alive(tpmPid)) process.kill(tpmPid, 'SIGKILL');
    while (alive(tpmPid)) await sleep(50);
  }
  try {
    execFileSync('ssh', [...state.ssh.slice(0, -1), '-O', 'exit', state.ssh.at(-1)], { stdio: 'ignore', timeout: 5_000 });
  } catch {
    /* the master died with the guest */
  }
}

/**
 * A reboot the guest made itself: QEMU exits then (-no-reboot). Waits for that, at most `limitMs`,
 * then ends what a cut ends (the TPM, ssh's control connection).
 */
export async function down(state, limitMs = 900_000) {
  const pid = qemuPid(state.pidfile);
  const t = performance.now();
  while (alive(pid)) {
    if (performance.now() - t > limitMs) throw new Error(`the guest did not go down within ${limitMs / 1000} s`);
    await sleep(500);
  }
  await cut(state);
}

/**
 * One QMP command to the running machine: the capabilities handshake, then `execute` with its
 * `arguments`; resolves with the command's return, rejects with QMP's error. Asynchronous events
 * QEMU sends meanwhile (DEVICE_DELETED and the like) are skipped.
 */
export function qmp(sock, execute, args = undefined, limitMs = 30_000) {
  return new Promise((resolve, reject) => {
    const c = createConnection(sock);
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error(`QMP ${execute}: no answer in ${limitMs} ms`));
    }, limitMs);
    const done = (err, value) => {
      clearTimeout(timer);
      c.end();
      if (err) reject(err);
      else resolve(value);
    };
    let buf = '';
    let step = 'greeting';
    c.on('error', (e) => done(e));
    c.on('data', (d) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === '') continue;
        const msg = JSON.parse(line);
        if ('event' in msg) continue;
        if (step === 'greeting' && 'QMP' in msg) {
          step = 'capabilities';
          c.write(JSON.stringify({ execute: 'qmp_capabilities' }) + '\n');
        } else if (step === 'capabilities' && 'return' in msg) {
          step = 'command';
          c.write(JSON.stringify(args === undefined ? { execute } : { execute, arguments: args }) + '\n');
        } else if ('error' in msg) {
          done(new Error(`QMP ${execute}: ${msg.error.class}: ${msg.error.desc}`));
        } else if (step === 'command' && 'return' in msg) {
          done(null, msg.return);
        }
      }
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, what, json] = process.argv.slice(2);
  if (!file || !['cut', 'boot', 'down', 'qmp'].includes(what) || (what === 'qmp' && !json)) {
    console.error('usage: qemu.mjs STATE.json cut|boot|down|qmp JSON');
    process.exit(2);
  }
  const state = JSON.parse(readFileSync(file, 'utf8'));
  if (what === 'cut') await cut(state);
  else if (what === 'down') await down(state, Number(process.env.BOARD_DOWN_LIMIT_S ?? 900) * 1000);
  else if (what === 'qmp') {
    const cmd = JSON.parse(json);
    console.log(JSON.stringify(await qmp(state.qmp, cmd.execute, cmd.arguments)));
  } else console.log(`board: booted again in ${(await boot(state)).toFixed(1)} s`);
}
