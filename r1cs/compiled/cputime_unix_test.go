//go:build unix

package compiled_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system time: on a shared machine the
// steadier measure of work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
