package fleet

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// DefaultUtilization is the share of an instance's processing capacity its
// input uses (see schema.Rehearsal.Utilization).
const DefaultUtilization = 0.1

// ErrRehearsalConfig marks a rehearsal configuration that cannot run; the
// message names the field (the CLI's flag).
var ErrRehearsalConfig = errors.New("invalid rehearsal")

// GateFunc evaluates the gate on phase of r: each candidate instance against
// the baseline instances over that phase's window (rehearsal.Gate
// with a policy).
type GateFunc func(r *schema.Rehearsal, phase int, candidates, baselines []int) (*schema.GateRecord, error)

// RehearsalConfig is an upgrade rehearsal: a fleet of Instances, each a child
// process with its own state directory, rolled from model From to model To.
type RehearsalConfig struct {
	Scenario    scenarios.Scenario
	From, To    string
	Instances   int
	Domains     int
	MaxRestarts int
	// WindowMs is each phase's length in simulated time.
	WindowMs int64
	Seed     int64
	// Utilization: see schema.Rehearsal.Utilization; 0 is DefaultUtilization.
	Utilization float64
	// Policy is the gate policy's YAML text, recorded as used.
	Policy string
	Gate   GateFunc
	// As in harness.Config: how children start (ChildArgs defaults to
	// InstanceArg), where state goes, their stderr.
	Exe       string
	ChildArgs []string
	ChildEnv  []string
	StateRoot string
	Stderr    io.Writer
	KillAfter time.Duration
	// Log receives one line per step of the rehearsal (progress); may be nil.
	Log io.Writer
}

// Validate reports the first field that cannot run, naming its flag.
func (c RehearsalConfig) Validate() error {
	bad := func(flag, format string, args ...any) error {
		return fmt.Errorf("%w: --%s: %s", ErrRehearsalConfig, flag, fmt.Sprintf(format, args...))
	}
	if err := c.ValidateModels(); err != nil {
		return err
	}
	switch {
	case c.Instances < 1:
		return bad("instances", "%d: need at least 1", c.Instances)
	case c.Instances > c.Scenario.Tasks:
		return bad("instances", "%d instances for the scenario's %d tasks: every instance needs a task (raise tasks with --set tasks=N)",
			c.Instances, c.Scenario.Tasks)
	case c.Domains < 1 || c.Domains > c.Instances:
		return bad("domains", "%d: need 1 to %d (the number of instances)", c.Domains, c.Instances)
	case c.MaxRestarts < 1:
		return bad("max-restarts", "%d: need at least 1", c.MaxRestarts)
	case c.WindowMs < c.Scenario.StepMs:
		return bad("window", "%d ms is shorter than one step of the scenario (%d ms)", c.WindowMs, c.Scenario.StepMs)
	case c.Utilization < 0 || c.Utilization > 1:
		return bad("utilization", "%v: need a share in (0, 1]", c.Utilization)
	case c.Scenario.Store == scenarios.StoreMigrating:
		return bad("scenario", "a fleet does not run the migrating store")
	case c.Gate == nil:
		return fmt.Errorf("%w: no gate", ErrRehearsalConfig)
	}
	return nil
}

// ValidateModels checks From and To alone.
func (c RehearsalConfig) ValidateModels() error {
	for _, f := range []struct{ flag, model string }{{"from", c.From}, {"to", c.To}} {
		if f.model == "" {
			return fmt.Errorf("%w: --%s: missing: name a model (one of %s)", ErrRehearsalConfig, f.flag,
				strings.Join(scenarios.ModelNames(), ", "))
		}
		rn, err := spec.ParseRunName(f.model, scenarios.ModelNames())
		if err != nil {
			return fmt.Errorf("%w: --%s: %w", ErrRehearsalConfig, f.flag, err)
		}
		if rn.JVM() {
			return fmt.Errorf("%w: --%s: %q: a rehearsal runs the Go engine's models only (one of %s); the JVM engine runs kafka-<version> models with rocksleak run",
				ErrRehearsalConfig, f.flag, f.model, strings.Join(scenarios.ModelNames(), ", "))
		}
	}
	if c.From == c.To {
		return fmt.Errorf("%w: --to: %q is --from too: nothing to upgrade", ErrRehearsalConfig, c.To)
	}
	return nil
}
