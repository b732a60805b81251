"""Confinement the child applies to itself: Landlock (files, network, signals) and seccomp.

Standard library only; part of the child package (see ``autograder/child/__init__.py``).
"""
import os

# -- Landlock: what the child may read, write, execute, connect to and signal ----------------
# Linux's Landlock LSM (kernel 5.13+) lets an unprivileged process restrict itself, and
# everything it starts, for good. The child keeps read access to the Python installation
# and the system libraries, full access to its own empty working folder, and nothing else:
# not the course folder (reference solutions, hidden checks, course secret, other
# students' submissions, grades), no TCP connections (ABI 4+), no signals to processes
# outside (ABI 6+: it cannot kill the grader). Where Landlock is missing it does nothing.
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_FS_EXECUTE, _FS_WRITE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ALL_V1 = (1 << 13) - 1
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11
_NET_ALL = 1 | 2          # bind and connect TCP
_SCOPE_ALL = 1 | 2        # abstract unix sockets and signals


def landlock(read_paths, exec_paths, write_paths):
    """Confine this process: read ``read_paths``, also execute programs under ``exec_paths``
    (the Python installation), and do anything under ``write_paths``.

    Returns the Landlock ABI version applied, or 0 when the kernel has no Landlock.
    """
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    fs = _FS_ALL_V1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) \
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, _NET_ALL, _SCOPE_ALL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, _NET_ALL)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(_SYS_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    read = _FS_READ_FILE | _FS_READ_DIR
    write = fs & ~(_MAKE_CHAR | _MAKE_BLOCK)  # no device nodes, even in its own folder
    for paths, access in ((read_paths, read), (exec_paths, read | _FS_EXECUTE), (write_paths, write)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = access if os.path.isdir(path) else access & (_FS_EXECUTE | _FS_WRITE | _FS_READ_FILE
                                                                   | _FS_TRUNCATE | _FS_IOCTL_DEV)
            rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
            libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
            os.close(fd)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required by restrict_self
        return 0
    if libc.syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        return 0
    os.close(ruleset)
    return abi


# -- seccomp: system calls Landlock does not cover ------------------------------------------
# Landlock says nothing about resource limits or priorities of other processes of the same
# user (prlimit could kill the grader with RLIMIT_CPU = 0), nor, when grading runs as root,
# about rebooting, renaming the host, device nodes or immutable files. A small seccomp
# filter refuses those calls with EPERM, and new processes too (threads are allowed), so a
# submission is one process: no fork bomb, nothing left running, memory bounded by one
# RLIMIT_AS. x86_64 only; elsewhere it does nothing.
_AUDIT_ARCH_X86_64 = 0xC000003E
_X86_64_DENIED = {
    141: "setpriority", 169: "reboot", 170: "sethostname", 171: "setdomainname",
    133: "mknod", 259: "mknodat", 165: "mount", 166: "umount2", 155: "pivot_root", 161: "chroot",
    272: "unshare", 308: "setns", 101: "ptrace", 310: "process_vm_readv", 311: "process_vm_writev",
    246: "kexec_load", 320: "kexec_file_load", 175: "init_module", 313: "finit_module",
    176: "delete_module", 167: "swapon", 168: "swapoff", 163: "acct", 164: "settimeofday",
    227: "clock_settime", 159: "adjtimex", 250: "keyctl", 321: "bpf", 298: "perf_event_open",
    425: "io_uring_setup", 323: "userfaultfd", 144: "sched_setscheduler", 314: "sched_setattr",
    251: "ioprio_set", 203: "sched_setaffinity", 57: "fork", 58: "vfork",
    41: "socket", 53: "socketpair",  # no sockets at all: Landlock does not cover unix sockets
}
_X86_64_PRLIMIT64, _X86_64_IOCTL, _X86_64_CLONE, _X86_64_CLONE3 = 302, 16, 56, 435
_CLONE_THREAD = 0x00010000
_FS_IOC_SETFLAGS = 0x40086602


def seccomp_filter():
    """Install the filter described above; returns True when installed."""
    import ctypes
    import platform
    import struct
    if platform.machine() != "x86_64":
        return False
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
    ALLOW, DENY, NOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38  # ALLOW, ERRNO(EPERM), ERRNO(ENOSYS)
    prog = []

    def op(code, k, jt=0, jf=0):
        prog.append((code, jt, jf, k))
    # Symbolic instructions first; jumps are then resolved to the two final returns
    # (RET ALLOW, RET DENY), counted in instructions to skip.
    code = []
    code.append(("LD", 4))                                   # arch
    code.append(("JNE_ALLOW", _AUDIT_ARCH_X86_64))
    code.append(("LD", 0))                                   # syscall number
    code.append(("JGE_DENY", 0x40000000))                    # x32 ABI
    for nr in sorted(_X86_64_DENIED):
        code.append(("JEQ_DENY", nr))
    code.append(("JEQ_NOSYS", _X86_64_CLONE3))               # glibc then falls back to clone
    code.append(("JNE_SKIP", _X86_64_CLONE, 2))              # clone: threads only, no new process
    code.append(("LD", 16))
    code.append(("JSET_ALLOW_ELSE_DENY", _CLONE_THREAD))
    code.append(("JNE_SKIP", _X86_64_PRLIMIT64, 4))          # prlimit64: only on itself (pid 0)
    code.append(("LD", 16))
    code.append(("JNE_DENY", 0))
    code.append(("LD", 20))
    code.append(("JNE_DENY", 0))
    code.append(("JNE_ALLOW", _X86_64_IOCTL))                # ioctl: no FS_IOC_SETFLAGS
    code.append(("LD", 24))
    code.append(("JEQ_DENY", _FS_IOC_SETFLAGS))
    n = len(code)
    allow, deny, nosys = n, n + 1, n + 2
    for i, item in enumerate(code):
        kind, k = item[0], item[1]
        to_allow, to_deny, to_nosys = allow - i - 1, deny - i - 1, nosys - i - 1
        if kind == "LD":
            op(LD, k)
        elif kind == "JEQ_DENY":
            op(JEQ, k, to_deny, 0)
        elif kind == "JEQ_NOSYS":
            op(JEQ, k, to_nosys, 0)
        elif kind == "JNE_DENY":
            op(JEQ, k, 0, to_deny)
        elif kind == "JGE_DENY":
            op(JGE, k, to_deny, 0)
        elif kind == "JNE_ALLOW":
            op(JEQ, k, 0, to_allow)
        elif kind == "JNE_SKIP":
            op(JEQ, k, 0, item[2])
        elif kind == "JSET_ALLOW_ELSE_DENY":
            op(JSET, k, to_allow, to_deny)
    op(RET, ALLOW)
    op(RET, DENY)
    op(RET, NOSYS)
    raw = b"".join(struct.pack("=HBBI", c, jt, jf, k) for c, jt, jf, k in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = SockFprog(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    return libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
