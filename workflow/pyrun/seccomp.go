package pyrun

import (
	"encoding/binary"
	"encoding/hex"
	"runtime"
)

// The seccomp filter the driver installs before it runs the code: no new
// processes (fork, vfork, clone without CLONE_THREAD; clone3 answers
// ENOSYS so the C library falls back to clone), no exec, no sockets (but
// socketpair, which asyncio's event loop uses), no ptrace, no mounts or
// namespaces. Nor may the code reach another process of its sandbox (the
// runs of one workspace share a fork server, zygote.go): no signals (to
// itself neither), no pidfd, no reading or writing another's memory, and
// the limits, priority and CPUs it may set are its own (pid 0) only, and
// it may not name another process the owner of a descriptor (fcntl
// F_SETOWN, ioctl FIOSETOWN: the kernel would signal that process, with a
// signal of the code's choosing, when the descriptor is ready). No
// io_uring (its operations pass no filter), no SysV or POSIX IPC objects
// and no keys (they outlive the run in a fork server's sandbox), no
// userfaultfd or perf events; on amd64 no x32 calls (their numbers would
// slip past the list). Everything else is allowed: the sandbox's
// namespaces and read-only file systems do the rest.

// Linux seccomp constants.
const (
	retAllow   = 0x7fff0000
	retErrno   = 0x00050000
	retKill    = 0x80000000
	errPerm    = 1
	errNoSys   = 38
	cloneThrd  = 0x00010000
	archAMD64  = 0xc000003e
	archARM64  = 0xc00000b7
	offNr      = 0
	offArch    = 4
	offArg0Low = 16
	offArg1Low = 24
	x32Bit     = 0x40000000 // amd64's x32 calls: their number with this bit set
)

// sockFilter is one classic BPF instruction.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

const (
	bpfLdAbsW = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJsetK  = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K
)

// syscalls of the machine: clone, clone3, those always refused, those
// allowed on the calling process only, by the argument (offset in
// seccomp_data) that names it, and those refused for some commands.
type syscalls struct {
	arch          uint32
	clone, clone3 uint32
	maxNr         uint32 // calls numbered from it are refused; 0: none
	denied        []uint32
	selfOnly      []selfOnly
	commands      []commands
}

// commands is a system call refused when its second argument (the
// command of fcntl and ioctl) is one of denied.
type commands struct {
	nr     uint32
	denied []uint32
}

// The commands that make another process a descriptor's owner: fcntl's
// F_SETOWN and F_SETOWN_EX, ioctl's FIOSETOWN and SIOCSPGRP.
var (
	fcntlOwner = []uint32{8, 15}
	ioctlOwner = []uint32{0x8901, 0x8902}
)

// selfOnly is a system call allowed when its arguments at offsets are 0:
// the calling process (for setpriority, which 0 is PRIO_PROCESS: not its
// process group nor its user).
type selfOnly struct {
	nr      uint32
	offsets []uint32
}

// Calls numbered alike on every machine: pidfd_send_signal, io_uring_setup,
// pidfd_open, pidfd_getfd.
var commonCalls = []uint32{424, 425, 434, 438}

func machineSyscalls() (syscalls, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return syscalls{arch: archAMD64, clone: 56, clone3: 435, maxNr: x32Bit,
			// fork vfork execve execveat socket ptrace mount unshare setns pivot_root umount2 kexec_load bpf,
			// kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo process_vm_readv process_vm_writev kcmp ioprio_set,
			// shmget semget msgget mq_open add_key request_key keyctl userfaultfd perf_event_open
			denied: append([]uint32{57, 58, 59, 322, 41, 101, 165, 272, 308, 155, 166, 246, 321,
				62, 200, 234, 129, 297, 310, 311, 312, 251, 29, 64, 68, 240, 248, 249, 250, 323, 298}, commonCalls...),
			// prlimit64 sched_setaffinity sched_setparam sched_setscheduler sched_setattr, setpriority
			selfOnly: selfCalls([]uint32{302, 203, 142, 144, 314}, 141),
			commands: []commands{{72, fcntlOwner}, {16, ioctlOwner}}}, true
	case "arm64":
		return syscalls{arch: archARM64, clone: 220, clone3: 435,
			// execve execveat socket ptrace mount unshare setns pivot_root umount2 kexec_load bpf,
			// kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo process_vm_readv process_vm_writev kcmp ioprio_set,
			// shmget semget msgget mq_open add_key request_key keyctl userfaultfd perf_event_open
			denied: append([]uint32{221, 281, 198, 117, 40, 97, 268, 41, 39, 104, 280,
				129, 130, 131, 138, 240, 270, 271, 272, 30, 194, 190, 186, 180, 217, 218, 219, 282, 241}, commonCalls...),
			// prlimit64 sched_setaffinity sched_setparam sched_setscheduler sched_setattr, setpriority
			selfOnly: selfCalls([]uint32{261, 122, 118, 119, 274}, 140),
			commands: []commands{{25, fcntlOwner}, {29, ioctlOwner}}}, true
	}
	return syscalls{}, false
}

// selfCalls are the calls whose first argument names the process, and
// setpriority, whose first two do.
func selfCalls(byPid []uint32, setpriority uint32) []selfOnly {
	out := []selfOnly{{nr: setpriority, offsets: []uint32{offArg0Low, offArg1Low}}}
	for _, nr := range byPid {
		out = append(out, selfOnly{nr: nr, offsets: []uint32{offArg0Low}})
	}
	return out
}

// filterProgram assembles the filter.
func filterProgram(sc syscalls) []sockFilter {
	deny := sockFilter{code: bpfRetK, k: retErrno | errPerm}
	p := []sockFilter{
		{code: bpfLdAbsW, k: offArch},
		{code: bpfJeqK, jt: 1, k: sc.arch},
		{code: bpfRetK, k: retKill},
		{code: bpfLdAbsW, k: offNr},
	}
	if sc.maxNr != 0 {
		p = append(p, sockFilter{code: bpfJgeK, jf: 1, k: sc.maxNr}, deny)
	}
	for _, nr := range sc.denied {
		p = append(p, sockFilter{code: bpfJeqK, jf: 1, k: nr}, deny)
	}
	for _, s := range sc.selfOnly {
		p = append(p, onlyZeros(s, deny)...)
	}
	for _, c := range sc.commands {
		p = append(p, notCommands(c, deny)...)
	}
	p = append(p,
		sockFilter{code: bpfJeqK, jf: 1, k: sc.clone3}, sockFilter{code: bpfRetK, k: retErrno | errNoSys},
		sockFilter{code: bpfJeqK, jf: 3, k: sc.clone},
		sockFilter{code: bpfLdAbsW, k: offArg0Low},
		sockFilter{code: bpfJsetK, jt: 1, k: cloneThrd},
		deny,
		sockFilter{code: bpfRetK, k: retAllow})
	return p
}

// onlyZeros checks one selfOnly call: when the call is s.nr, it is
// allowed if every argument at s.offsets is 0 (its low 32 bits: the
// kernel reads an int) and refused otherwise; other calls go on to the
// next check.
func onlyZeros(s selfOnly, deny sockFilter) []sockFilter {
	n := len(s.offsets)
	p := []sockFilter{{code: bpfJeqK, jf: uint8(2*n + 2), k: s.nr}}
	for i, off := range s.offsets {
		toDeny := uint8(2*(n-1-i) + 1)
		p = append(p, sockFilter{code: bpfLdAbsW, k: off}, sockFilter{code: bpfJeqK, jf: toDeny, k: 0})
	}
	return append(p, sockFilter{code: bpfRetK, k: retAllow}, deny)
}

// notCommands checks one call refused for some commands: when the call is
// c.nr, it is refused if its second argument is one of c.denied and
// allowed otherwise; other calls go on to the next check.
func notCommands(c commands, deny sockFilter) []sockFilter {
	n := len(c.denied)
	p := []sockFilter{{code: bpfJeqK, jf: uint8(n + 3), k: c.nr}, {code: bpfLdAbsW, k: offArg1Low}}
	for i, cmd := range c.denied {
		p = append(p, sockFilter{code: bpfJeqK, jt: uint8(n - i), k: cmd})
	}
	return append(p, sockFilter{code: bpfRetK, k: retAllow}, deny)
}

// filterHex is the filter as the driver reads it: the raw instructions,
// little-endian, in hex; "" where the machine is not known.
func filterHex() string {
	sc, ok := machineSyscalls()
	if !ok {
		return ""
	}
	prog := filterProgram(sc)
	b := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		b = binary.LittleEndian.AppendUint16(b, f.code)
		b = append(b, f.jt, f.jf)
		b = binary.LittleEndian.AppendUint32(b, f.k)
	}
	return hex.EncodeToString(b)
}
