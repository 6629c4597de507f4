//go:build cgo

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/fleet"
	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/host"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/rehearsal"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// rehearseUsage is the manual of "rocksleak rehearse".
const rehearseUsage = `rocksleak rehearse --from MODEL --to MODEL [--instances 4] [--domains 2] [--max-restarts 1]
                  [--window 2h] [--policy FILE] [--scenario NAME|FILE] [--set key=value]... [--seed N]
                  [--out DIR] [--state-dir DIR]

Rehearses the upgrade of a fleet of Kafka Streams instances from one model
(version) to another on real RocksDB: each instance is a child process with its
own state directory, owning tasks through a sticky assignment (task k on
instance k mod N); instance i is in failure domain i mod D. The fleet shares one
changelog per store partition (files under the fleet's root). Phases, each one
window of simulated time:

  baseline          every instance on --from
  canary            instance 0 restarted on --to over its own state; gated
  expand-domain-D   each domain's remaining instances, at most --max-restarts
                    at once (one phase per wave); each gated
  final             every instance on --to

A gate compares the restarted instances with the instances still on --from over
the same window (for the last expansion, with the instances upgraded before),
under the policy (default: the canary gate, gate --print-policy). When a gate
fails the rollout stops: the upgraded instances are restarted on --from over
their state, run one more window, and the rollback is verified (the old version
opens the new version's state, changelog offsets preserved, no record lost,
outputs equal to the parent's replay of the input, version mapping restored).

Records arrive at a fixed rate per task in simulated time; a restart stalls the
instance's tasks for its wall time mapped onto simulated time (the input uses
10% of an instance's measured processing capacity), and the instance catches
up at 10 times the input rate. Lag is recorded per tick.

Writes rehearsal.json, report.md and rehearsal.png into --out (default
runs/rehearsals/<UTC time>-<from>-to-<to>).

Exit status: 0 the rollout completed; 1 a gate failed and the rollback
verified; 2 bad input; 3 the rollback did not verify; 4 the rehearsal failed
(a child failed); 130 interrupted (the record is written, marked).
`

// rehearseOptions are the flags of "rocksleak rehearse".
type rehearseOptions struct {
	from, to                         string
	instances, domains, maxRestarts  int
	window                           time.Duration
	policy, scenario, out, stateRoot string
	sets                             setFlags
	seed                             int64
}

// DefaultRehearsalScenario is the workload of "rocksleak rehearse".
const defaultRehearsalScenario = "rehearsal"

func parseRehearseFlags(stderr io.Writer, args []string) (rehearseOptions, error) {
	var o rehearseOptions
	fs := flag.NewFlagSet("rehearse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, rehearseUsage); fs.PrintDefaults() }
	fs.StringVar(&o.from, "from", "", "model the fleet runs before the upgrade (e.g. leaky)")
	fs.StringVar(&o.to, "to", "", "model the fleet is upgraded to (e.g. fixed)")
	fs.IntVar(&o.instances, "instances", 4, "instances in the fleet")
	fs.IntVar(&o.domains, "domains", 2, "failure domains (instance i in domain i mod D)")
	fs.IntVar(&o.maxRestarts, "max-restarts", 1, "instances restarting at once during an expansion")
	units.DurationVar(fs, &o.window, "window", 2*time.Hour, "each phase's length in simulated time")
	fs.StringVar(&o.policy, "policy", "", "gate policy YAML (default: the canary gate)")
	fs.StringVar(&o.scenario, "scenario", defaultRehearsalScenario, "workload: a catalogue scenario or a YAML file (its tasks are spread over the fleet)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.Int64Var(&o.seed, "seed", -1, "seed (default: the scenario's)")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/rehearsals/<UTC time>-<from>-to-<to>)")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the fleet's state and changelogs go (default /dev/shm or the temp dir); removed at the end")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, usagef("rehearse: unexpected argument %q", fs.Arg(0))
	}
	if o.window <= 0 {
		return o, usagef("--window: %s must be positive", o.window)
	}
	return o, nil
}

func rehearseCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, err := parseRehearseFlags(stderr, args)
	if err != nil {
		return err
	}
	sc, err := rehearseScenario(o)
	if err != nil {
		return err
	}
	policy, policyText := gate.DefaultPolicy(), string(gate.DefaultPolicyYAML())
	if o.policy != "" {
		if policy, err = gate.LoadPolicy(o.policy); err != nil {
			return usagef("--policy: %v", err)
		}
		b, _ := os.ReadFile(o.policy)
		policyText = string(b)
	}
	outDir := o.out
	if outDir == "" {
		outDir = defaultOut("rehearsals", o.from+"-to-"+o.to)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}
	cfg := fleet.RehearsalConfig{
		Scenario: sc, From: o.from, To: o.to, Instances: o.instances, Domains: o.domains, MaxRestarts: o.maxRestarts,
		WindowMs: o.window.Milliseconds(), Seed: sc.Seed, Policy: policyText, StateRoot: o.stateRoot,
		Stderr: stderr, Log: stderr,
		Gate: func(r *schema.Rehearsal, phase int, cands, bases []int) (*schema.GateRecord, error) {
			return rehearsal.Gate(policy, r, phase, cands, bases)
		},
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%v", strings.TrimPrefix(err.Error(), fleet.ErrRehearsalConfig.Error()+": "))
	}
	fmt.Fprintf(stdout, "rocksleak: rehearsing %s → %s on %d instances in %d failure domains, scenario %s, window %s (simulated), seed %d\n",
		o.from, o.to, o.instances, o.domains, sc.Name, o.window, sc.Seed)
	rec, err := fleet.Rehearse(ctx, cfg)
	if err != nil {
		if errors.Is(err, fleet.ErrRehearsalConfig) {
			return usagef("%v", err)
		}
		return err
	}
	rec.Provenance = host.Provenance(sc.Seed, gitCommit, "rocksleak rehearse "+strings.Join(args, " "))
	if err := rehearsal.Write(outDir, rec); err != nil {
		return fmt.Errorf("writing the rehearsal: %w", err)
	}
	fmt.Fprint(stdout, rehearsal.Summary(rec))
	fmt.Fprintf(stdout, "\nrehearsal: %s (rehearsal.json, report.md, rehearsal.png)\n", outDir)
	return rehearsalStatus(stderr, rec)
}

// rehearseScenario is the scenario --scenario names, with --set and --seed
// applied and the two versions as its models, validated.
func rehearseScenario(o rehearseOptions) (scenarios.Scenario, error) {
	sc, _, err := scenarios.Load(o.scenario)
	if err != nil {
		return sc, err
	}
	for _, kv := range o.sets {
		if err := sc.Set(kv); err != nil {
			return sc, err
		}
	}
	if o.seed >= 0 {
		sc.Seed = o.seed
	}
	if err := (fleet.RehearsalConfig{From: o.from, To: o.to}).ValidateModels(); err != nil {
		return sc, usagef("%v", strings.TrimPrefix(err.Error(), fleet.ErrRehearsalConfig.Error()+": "))
	}
	sc.Models = []string{o.from, o.to}
	return sc, sc.Validate()
}

// rehearsalStatus is the exit status of a rehearsal: 0 complete, 1 rolled
// back and verified, 3 the rollback did not verify, 130 interrupted, 4
// otherwise (see rehearseUsage).
func rehearsalStatus(stderr io.Writer, rec *schema.Rehearsal) error {
	switch rec.Status {
	case schema.RehearsalComplete:
		return nil
	case schema.RehearsalRolledBack:
		return exitStatus{1, fmt.Errorf("%w: %s", errQuiet, rec.Decision)}
	case schema.RehearsalRollbackFailed:
		return exitStatus{3, errors.New(rec.Decision)}
	case schema.RehearsalInterrupted:
		fmt.Fprintln(stderr, "rocksleak: interrupted; rehearsal.json is marked \"status\": \"interrupted\"")
		return errInterrupted
	}
	return exitStatus{4, errors.New(rec.Decision)}
}
