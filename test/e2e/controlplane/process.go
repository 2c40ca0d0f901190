package controlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// pidRecord is what a run directory remembers about each process it started,
// so that Stop in another process (playground down) finds them again. The
// start time guards against killing an unrelated process that got a recycled PID.
type pidRecord struct {
	Name      string   `json:"name"`
	PID       int      `json:"pid"`
	StartTime uint64   `json:"startTime"` // field 22 of /proc/<pid>/stat, in clock ticks since boot
	Seq       int      `json:"seq"`       // start order; stopping goes the other way
	Args      []string `json:"args"`
	Log       string   `json:"log"`
}

// process is one child we started in this Go process.
type process struct {
	rec  pidRecord
	env  []string // added to ours, for RestartProcess
	cmd  *exec.Cmd
	done chan struct{} // closed once the child was reaped
	err  error         // exit status, valid after done
}

func pidDir(runDir string) string { return filepath.Join(runDir, "pids") }

func pidFile(runDir, name string) string { return filepath.Join(pidDir(runDir), name+".json") }

// spawner runs every fork on one OS thread that never exits. Pdeathsig fires
// when the *thread* that forked a child dies, not the process; a dedicated
// locked thread makes "kill the children with the test binary" reliable.
type spawner struct {
	once sync.Once
	reqs chan func()
}

var theSpawner spawner

func (s *spawner) do(f func()) {
	s.once.Do(func() {
		s.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range s.reqs {
				f()
			}
		}()
	})
	done := make(chan struct{})
	s.reqs <- func() { f(); close(done) }
	<-done
}

// startProcess starts bin with args and env (added to ours), logging stdout and
// stderr to logs/<name>.log, and records its PID. Each child gets its own
// process group so that Stop can signal it and anything it forks, and a
// terminal's Ctrl-C does not reach a detached playground.
func (e *Env) startProcess(name, bin string, args, env []string) (*process, error) {
	if err := os.MkdirAll(pidDir(e.RunDir), 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(e.RunDir, "logs", name+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	fmt.Fprintf(logFile, "\n=== %s: %s %s\n", time.Now().Format(time.RFC3339), bin, strings.Join(args, " "))

	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = e.RunDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !e.opts.Detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	theSpawner.do(func() { err = cmd.Start() })
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	e.mu.Lock()
	e.seq++
	seq := e.seq
	e.mu.Unlock()
	p := &process{
		env:  env,
		cmd:  cmd,
		done: make(chan struct{}),
		rec: pidRecord{
			Name: name, PID: cmd.Process.Pid, Seq: seq,
			Args: append([]string{bin}, args...), Log: logPath,
		},
	}
	p.rec.StartTime, _ = procStartTime(p.rec.PID)
	go func() { p.err = cmd.Wait(); close(p.done) }()

	data, _ := json.MarshalIndent(p.rec, "", "  ")
	if err := os.WriteFile(pidFile(e.RunDir, name), data, 0o644); err != nil {
		_ = stopPID(p.rec, 0)
		return nil, err
	}
	e.mu.Lock()
	e.procs[name] = p
	e.mu.Unlock()
	e.logf("started %s (pid %d, log %s)", name, p.rec.PID, logPath)
	return p, nil
}

// proc returns the running child called name.
func (e *Env) proc(name string) (*process, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.procs[name]
	return p, ok
}

// exited reports whether a child we started has died, with its log tail, so
// waits can fail fast instead of running into their deadline.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); last log lines:\n%s", p.rec.Name, p.err, tail(p.rec.Log, 20))
	default:
		return nil
	}
}

// stopProcess stops one of our children and forgets its PID file.
func (e *Env) stopProcess(name string) error {
	p, ok := e.proc(name)
	if !ok {
		return nil
	}
	err := stopPID(p.rec, 15*time.Second)
	// Reap it so that it does not linger as a zombie of the test binary.
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
	e.mu.Lock()
	delete(e.procs, name)
	e.mu.Unlock()
	_ = os.Remove(pidFile(e.RunDir, name))
	return err
}

// StopRun stops every process recorded in runDir, newest first, and removes
// the PID files. It works from any process (playground down) and only signals
// PIDs whose start time still matches the record.
func StopRun(runDir string) error {
	recs, err := readPIDRecords(runDir)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range recs {
		if err := stopPID(r, 15*time.Second); err != nil {
			errs = append(errs, err)
			continue
		}
		_ = os.Remove(pidFile(runDir, r.Name))
	}
	return errors.Join(errs...)
}

// readPIDRecords lists the processes a run directory says it started, newest first.
func readPIDRecords(runDir string) ([]pidRecord, error) {
	files, err := filepath.Glob(filepath.Join(pidDir(runDir), "*.json"))
	if err != nil {
		return nil, err
	}
	var recs []pidRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r pidRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq > recs[j].Seq })
	return recs, nil
}

// alive reports whether r still names the process we started.
func alive(r pidRecord) bool {
	st, err := procStartTime(r.PID)
	if err != nil {
		return false // gone (or a zombie already reaped)
	}
	if r.StartTime != 0 && st != r.StartTime {
		return false // the PID was recycled: not ours
	}
	return !isZombie(r.PID)
}

// stopPID sends SIGTERM to the process group of r, waits up to grace, then
// sends SIGKILL (at once for grace 0). Groups are ours because every child was started with Setpgid.
func stopPID(r pidRecord, grace time.Duration) error {
	if !alive(r) {
		return nil
	}
	if grace > 0 {
		_ = syscall.Kill(-r.PID, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !alive(r) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-r.PID, syscall.SIGKILL)
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(r) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s (pid %d) survived SIGKILL", r.Name, r.PID)
}

// procStartTime reads the start time of pid from /proc; it fails once the
// process is gone.
func procStartTime(pid int) (uint64, error) {
	f, err := procStatFields(pid)
	if err != nil {
		return 0, err
	}
	// After "pid (comm) state", field 22 (starttime) is index 19.
	if len(f) < 20 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

func isZombie(pid int) bool {
	f, err := procStatFields(pid)
	return err != nil || (len(f) > 0 && f[0] == "Z")
}

// procStatFields returns the fields of /proc/<pid>/stat after the command
// name, which may itself contain spaces and parentheses.
func procStatFields(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// rssKiB reads the resident set size of pid.
func rssKiB(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// RunProcess is one process recorded in a run directory.
type RunProcess struct {
	Name    string
	PID     int
	Running bool
	Log     string
}

// RunProcesses lists what a run directory says it started, newest first,
// and whether each is still running.
func RunProcesses(runDir string) ([]RunProcess, error) {
	recs, err := readPIDRecords(runDir)
	if err != nil {
		return nil, err
	}
	out := make([]RunProcess, 0, len(recs))
	for _, r := range recs {
		out = append(out, RunProcess{Name: r.Name, PID: r.PID, Running: alive(r), Log: r.Log})
	}
	return out, nil
}
