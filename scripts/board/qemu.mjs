#!/usr/bin/env node
// The virtual board's machine: one QEMU command line for every run (scenario.mjs, apt.sh), its
// power (a cut is SIGKILL to QEMU: what only the guest's RAM held is gone) and its ssh control
// connection. A run keeps what it booted in a state file, so that another process (e2e.sh's
// --power, through this file's command line) can cut the power and boot the same board again:
//
//   node scripts/board/qemu.mjs STATE.json cut     SIGKILL to QEMU, wait until it is gone
//   node scripts/board/qemu.mjs STATE.json boot    the same machine again; returns once ssh answers
//
// STATE.json: { args, pidfile, serial, ssh: [ssh arguments up to the host], bootLimitMs }.
// The ssh control socket lives in BOARD_SOCK (a short folder under /tmp): a socket path is limited
// to 108 bytes, and a checkout under a long CI path would not fit.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** QEMU's arguments: `-M virt` arm64 under TCG, the disk as a qcow2 overlay, the user network. */
export function qemuArgs({
  kdir,
  disk,
  sshPort,
  simPort = null,
  serial,
  pidfile,
  cmdlineExtra = '',
  smp = process.env.BOARD_SMP ?? '2',
  mem = process.env.BOARD_MEM ?? '1024',
}) {
  const net = [`user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${sshPort}-:22`];
  // The reference server on the host's loopback, reached as http://10.0.2.100 (scripts/board/README.md).
  if (simPort !== null) net.push(`guestfwd=tcp:10.0.2.100:80-cmd:socat - TCP:127.0.0.1:${simPort}`);
  return [
    ...['-M', 'virt', '-accel', 'tcg,thread=multi', '-cpu', 'cortex-a72', '-smp', smp, '-m', mem],
    ...['-display', 'none', '-monitor', 'none', '-serial', `file:${serial}`, '-no-reboot'],
    ...['-kernel', `${kdir}/vmlinuz`, '-initrd', `${kdir}/initrd.img`],
    ...['-append', `root=/dev/vda rw console=ttyAMA0 net.ifnames=0 quiet loglevel=4${cmdlineExtra}`],
    // cache=writeback: the guest sees a volatile write cache and flushes it (ext4 commits, fsync);
    // QEMU passes each flush to the image (fdatasync). A SIGKILL to QEMU loses what only the guest's
    // RAM held (its page cache), as a power cut does. scripts/board/README.md says what this cannot show.
    ...['-drive', `file=${disk},if=none,id=d0,format=qcow2,cache=writeback,aio=threads`, '-device', 'virtio-blk-pci,drive=d0'],
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

export const qemuPid = (pidfile) => Number(readFileSync(pidfile, 'utf8'));
export const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const tail = (f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-30).join('\n') : '');

/** Start QEMU and wait for ssh; the boot's seconds. Keeps STATE for cut/boot from elsewhere. */
export async function boot(state, stateFile = null) {
  if (stateFile !== null) writeFileSync(stateFile, JSON.stringify(state));
  const t = performance.now();
  execFileSync('qemu-system-aarch64', state.args, { stdio: ['ignore', 'ignore', 'pipe'] });
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

/** The power cut: SIGKILL to QEMU; the ssh control connection goes with it. */
export async function cut(state) {
  const pid = qemuPid(state.pidfile);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await sleep(50);
  try {
    execFileSync('ssh', [...state.ssh.slice(0, -1), '-O', 'exit', state.ssh.at(-1)], { stdio: 'ignore', timeout: 5_000 });
  } catch {
    /* the master died with the guest */
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, what] = process.argv.slice(2);
  if (!file || !['cut', 'boot'].includes(what)) {
    console.error('usage: qemu.mjs STATE.json cut|boot');
    process.exit(2);
  }
  const state = JSON.parse(readFileSync(file, 'utf8'));
  if (what === 'cut') await cut(state);
  else console.log(`board: booted again in ${(await boot(state)).toFixed(1)} s`);
}
