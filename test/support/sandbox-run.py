#!/usr/bin/python3
"""sandbox-run.py UNIT_FILE COMMAND...: run COMMAND under the seccomp part of UNIT_FILE's sandbox,
rebuilt with libseccomp (Debian: python3-seccomp):

- SystemCallFilter=: the allow-list lines minus the ~ lines, groups expanded by this machine's
  `systemd-analyze syscall-filter` (so they are exactly this systemd's groups);
- SystemCallErrorNumber=EPERM: anything else fails with EPERM;
- RestrictAddressFamilies=: socket() only for the listed families (others get EPERM where systemd
  gives EAFNOSUPPORT; glibc and libuv treat both as "not available");
- NoNewPrivileges=yes (libseccomp sets it when loading the filter).

Not covered: the mount namespace (ProtectSystem= and friends), the device cgroup, credentials,
the user switch. Those need a real systemd: a board, or a VM that boots one.
"""
import errno
import os
import socket
import subprocess
import sys

import seccomp

unit_file, argv = sys.argv[1], sys.argv[2:]
allow_lines, deny_lines, families = [], [], []
with open(unit_file) as f:
    for raw in f:
        line = raw.strip()
        if line.startswith('SystemCallFilter='):
            v = line.split('=', 1)[1]
            (deny_lines if v.startswith('~') else allow_lines).append(v.lstrip('~'))
        elif line.startswith('RestrictAddressFamilies='):
            families += line.split('=', 1)[1].split()
if not allow_lines or not families:
    sys.exit(f'sandbox-run: {unit_file} has no SystemCallFilter= allow-list or RestrictAddressFamilies=')

groups, cur = {}, None
for line in subprocess.run(['systemd-analyze', 'syscall-filter'], capture_output=True, text=True, check=True).stdout.splitlines():
    if line.startswith('@'):
        cur = line.split()[0]
        groups[cur] = []
    elif cur and line.strip() and not line.strip().startswith('#'):
        groups[cur].append(line.strip())


def expand(name):
    if not name.startswith('@'):
        return {name}
    out = set()
    for member in groups[name]:
        out |= expand(member)
    return out


allow = set().union(*(expand(n) for l in allow_lines for n in l.split()))
allow -= set().union(*(expand(n) for l in deny_lines for n in l.split()))
flt = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
count = 0
for name in sorted(allow - {'socket'}):
    try:
        flt.add_rule(seccomp.ALLOW, name)
        count += 1
    except (RuntimeError, ValueError):
        pass  # not a syscall of this architecture
if 'socket' in allow:
    for fam in families:
        flt.add_rule(seccomp.ALLOW, 'socket', seccomp.Arg(0, seccomp.EQ, getattr(socket, fam)))
flt.load()
sys.stderr.write(f'sandbox-run: {count} system calls allowed; socket() for {" ".join(families)} only\n')
os.execvp(argv[0], argv)
