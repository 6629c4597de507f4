package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/scenarios"
)

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runOptions are the run library's options (runScenario): what "rocksleak
// run" parses from its flags, and what a preset of it (versions,
// crosscheck) fills in. Unset numbers are -1, as the flags' defaults.
type runOptions struct {
	scenario     string
	models       string
	lifecycles   int
	duration     time.Duration
	seed         int64
	out          string
	sets         setFlags
	stateRoot    string
	untilVerdict bool
	allocator    string
	format       string
	profile      bool
	profileEvery int64
	maxRSS       string
	noSpaceCheck bool
	app          string // an app file (rocksleak run --app): the user's application instead of the scenario's workload
}

// defaultRunOptions are the options of "rocksleak run" with no flags.
func defaultRunOptions() runOptions {
	return runOptions{scenario: scenarios.DefaultName(), lifecycles: -1, duration: -1, seed: -1, format: "text"}
}

// presetArgs are the "rocksleak run" arguments that give the options a
// preset sets (models, lifecycles, out, the sets, scenario and seed when
// not the defaults): the command a preset prints and records, so that a user
// can run it again with "rocksleak run".
func (o runOptions) presetArgs() []string {
	args := []string{"--models", o.models}
	if o.lifecycles > 0 {
		args = append(args, "--lifecycles", strconv.Itoa(o.lifecycles))
	}
	args = append(args, "--out", o.out)
	for _, s := range o.sets {
		args = append(args, "--set", s)
	}
	if o.scenario != scenarios.DefaultName() {
		args = append(args, "--scenario", o.scenario)
	}
	if o.seed >= 0 {
		args = append(args, "--seed", strconv.FormatInt(o.seed, 10))
	}
	return args
}
