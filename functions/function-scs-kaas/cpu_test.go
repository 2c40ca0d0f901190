package main

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, garbage collection
// included. On a machine shared with other work the wall time of a benchmark loop
// measures the other work too; the CPU time per call does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per call of a b.Loop loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
