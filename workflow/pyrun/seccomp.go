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
// namespaces. Everything else is allowed: the
// sandbox's namespaces and read-only /usr do the rest.

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
	bpfRetK   = 0x06 // BPF_RET | BPF_K
)

// syscalls of the machine: clone, clone3, and those always refused.
type syscalls struct {
	arch          uint32
	clone, clone3 uint32
	denied        []uint32
}

func machineSyscalls() (syscalls, bool) {
	switch runtime.GOARCH {
	case "amd64": // fork vfork execve execveat socket ptrace mount unshare setns pivot_root umount2 kexec_load bpf
		return syscalls{arch: archAMD64, clone: 56, clone3: 435,
			denied: []uint32{57, 58, 59, 322, 41, 101, 165, 272, 308, 155, 166, 246, 321}}, true
	case "arm64": // execve execveat socket ptrace mount unshare setns pivot_root umount2 kexec_load bpf
		return syscalls{arch: archARM64, clone: 220, clone3: 435,
			denied: []uint32{221, 281, 198, 117, 40, 97, 268, 41, 39, 104, 280}}, true
	}
	return syscalls{}, false
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
	for _, nr := range sc.denied {
		p = append(p, sockFilter{code: bpfJeqK, jf: 1, k: nr}, deny)
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
