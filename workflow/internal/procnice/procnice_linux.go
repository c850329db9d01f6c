package procnice

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Process sets the nice value of every thread of process pid. On Linux a
// nice value is a thread's, and a thread a process starts later inherits
// the nice value of the thread that starts it; so each thread is set, and
// the threads are listed again until no new one shows up.
func Process(pid, nice int) error {
	done := map[int]bool{}
	var first error
	for range 4 {
		fresh := 0
		for _, tid := range tasks(pid) {
			if done[tid] {
				continue
			}
			done[tid], fresh = true, fresh+1
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil && first == nil && !errors.Is(err, syscall.ESRCH) {
				first = err
			}
		}
		if fresh == 0 {
			break
		}
	}
	if len(done) == 0 {
		return syscall.ESRCH
	}
	return first
}

// Tree sets the nice value of process pid and of all its descendants
// (Process on each). The root is set first and its descendants are listed
// after, so a process it starts meanwhile either inherits the value or
// is listed.
func Tree(pid, nice int) error {
	first := Process(pid, nice)
	for _, p := range Descendants(pid)[1:] {
		if err := Process(p, nice); err != nil && first == nil && !errors.Is(err, syscall.ESRCH) {
			first = err
		}
	}
	return first
}

// Descendants returns pid followed by every process descending from it,
// parents before their children, from one reading of /proc.
func Descendants(pid int) []int {
	kids := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				kids[ppid] = append(kids[ppid], p)
			}
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// Nice returns the nice value of process (or thread) id: field 19 of
// /proc/<id>/stat.
func Nice(id int) (int, error) {
	f := statFields(id)
	if len(f) < 17 {
		return 0, syscall.ESRCH
	}
	return strconv.Atoi(f[16])
}

// Tasks returns the thread ids of process pid (none once it is gone).
func Tasks(pid int) []int { return tasks(pid) }

func tasks(pid int) []int {
	entries, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	out := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// statFields returns the fields of /proc/<id>/stat after the command
// name (which may hold spaces and parentheses): the state is the first,
// field 3 of proc(5).
func statFields(id int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(id) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}
