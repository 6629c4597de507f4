package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/schema"
)

// instProc is the parent's handle on one running instance child: its
// command pipe, the events it streams back (read on a goroutine) and the
// samples received since the last phase end.
type instProc struct {
	id      int
	model   string
	cmd     *exec.Cmd
	enc     *json.Encoder
	stdin   io.WriteCloser
	events  chan Event
	readErr error // set before events closes
	tail    *harness.TailBuffer
	waited  bool
	waitErr error

	info    schema.ChildInfo
	samples []schema.Sample
	summary *schema.Summary
	stopped *InstanceStopped
}

// errInstanceEnded means an instance's child ended without the event awaited.
var errInstanceEnded = errors.New("instance child ended")

// startInstance starts a child for job (its Instance set); the caller awaits
// its Ready event.
func startInstance(cfg *fleetRuntime, job Job, env []string) (*instProc, error) {
	b, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &instProc{id: job.Instance.ID, model: job.Model, tail: harness.NewTailBuffer(4096), events: make(chan Event, 256)}
	cmd := exec.Command(cfg.exe, cfg.childArgs...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	cmd.Stdout = io.MultiWriter(cfg.stderr, p.tail)
	cmd.Stderr = io.MultiWriter(cfg.stderr, p.tail)
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Env = append(append(append(os.Environ(), harness.ChildEnvVar+"=1"), cfg.childEnv...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting instance %d: %w", p.id, err)
	}
	pw.Close()
	p.cmd, p.stdin, p.enc = cmd, stdin, json.NewEncoder(stdin)
	go func() {
		defer pr.Close()
		p.readErr = harness.DecodeEvents(pr, func(e Event) { p.events <- e })
		close(p.events)
	}()
	if _, err := stdin.Write(append(b, '\n')); err != nil {
		p.kill(cfg.killAfter)
		return nil, fmt.Errorf("instance %d: sending the job: %w", p.id, err)
	}
	return p, nil
}

// send writes one command.
func (p *instProc) send(c InstanceCommand) error {
	if err := p.enc.Encode(c); err != nil {
		return fmt.Errorf("instance %d: %w", p.id, err)
	}
	return nil
}

// await reads events until want returns true for one, keeping samples, the
// summary and the stopped report as they pass; errInstanceEnded when the
// stream ends first.
func (p *instProc) await(want func(Event) bool) (Event, error) {
	for e := range p.events {
		switch {
		case e.Info != nil:
			p.info = *e.Info
		case e.Sample != nil:
			p.samples = append(p.samples, *e.Sample)
		case e.Summary != nil:
			p.summary = e.Summary
		case e.Stopped != nil:
			p.stopped = e.Stopped
		}
		if want(e) {
			return e, nil
		}
	}
	return Event{}, p.ended()
}

// ended describes why the child's stream ended.
func (p *instProc) ended() error {
	p.wait()
	msg := ""
	switch {
	case p.summary != nil && p.summary.Error != "":
		msg = p.summary.Error
	case p.waitErr != nil:
		msg = "process " + harness.DescribeExit(p.waitErr)
	case p.readErr != nil:
		msg = "reading its events: " + p.readErr.Error()
	default:
		msg = "it exited"
	}
	return fmt.Errorf("%w: instance %d (%s): %s%s", errInstanceEnded, p.id, p.model, msg, harness.LastLines(p.tail.String()))
}

func (p *instProc) wait() {
	if !p.waited {
		p.waited = true
		p.waitErr = p.cmd.Wait()
	}
}

// takeSamples returns the samples received so far and forgets them.
func (p *instProc) takeSamples() []schema.Sample {
	s := p.samples
	p.samples = nil
	return s
}

// stop asks the child to stop (closing its stores), waits for its stopped
// report and summary and for the process, killing it after killAfter.
func (p *instProc) stop(killAfter time.Duration) error {
	if err := p.send(InstanceCommand{Stop: true}); err != nil {
		p.kill(killAfter)
		return err
	}
	_ = p.stdin.Close()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
		case <-time.After(killAfter):
			_ = p.cmd.Process.Kill()
		}
	}()
	_, _ = p.await(func(Event) bool { return false }) // drain to the end
	p.wait()
	close(done)
	wg.Wait()
	switch {
	case p.summary == nil || p.stopped == nil:
		return p.ended()
	case p.summary.Error != "":
		return fmt.Errorf("instance %d (%s): %s", p.id, p.model, p.summary.Error)
	case p.waitErr != nil:
		return p.ended()
	}
	return nil
}

// kill stops the child as on an interrupt: SIGTERM (it closes its stores
// and exits), SIGKILL after killAfter; it waits for the process.
func (p *instProc) kill(killAfter time.Duration) {
	if p.waited {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(killAfter):
			_ = p.cmd.Process.Kill()
		}
	}()
	for range p.events {
	}
	p.wait()
	close(done)
}
