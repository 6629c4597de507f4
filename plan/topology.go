package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rocksleak/rocksleak/internal/strictyaml"
	"github.com/rocksleak/rocksleak/internal/units"
)

// ErrInvalidTopology marks a topology that cannot be planned for: malformed
// YAML, an unknown field, or an invalid value. The message names the field.
// The CLI exits 2 on it.
var ErrInvalidTopology = errors.New("invalid topology")

// MaxTopologyBytes is the largest topology file ParseTopology accepts.
const MaxTopologyBytes = 1 << 20

// Limits enforced by Validate.
const (
	// MinSegmentInterval is the shortest segment interval: Kafka's segment
	// intervals are whole milliseconds.
	MinSegmentInterval = time.Millisecond
	// MaxHorizon is the longest projection.
	MaxHorizon = 10 * 365 * Day
	// Day is 86,400,000 ms.
	Day = units.Day
	// MaxCount bounds tasks, stores per task, live segments and rebalances
	// per day: beyond it a topology is a units mistake (and products of
	// counts stay finite).
	MaxCount = 1_000_000
)

// Topology is the production deployment a plan projects to: how many store
// instances are live and how often they are opened and closed. Field
// comments give units and the constraints Validate enforces.
type Topology struct {
	// Name labels the plan (optional).
	Name string `yaml:"name" json:"name"`
	// Tasks is the number of stream tasks, in [1, MaxCount].
	Tasks int `yaml:"tasks" json:"tasks"`
	// StoresPerTask is the number of (window) stores per task, in [1, MaxCount].
	StoresPerTask int `yaml:"stores_per_task" json:"stores_per_task"`
	// LiveSegments is the number of open RocksDB instances per store, in
	// [1, MaxCount]
	// (1 for a key-value store; retention / segment interval + 1 for a
	// window store).
	LiveSegments int `yaml:"live_segments" json:"live_segments"`
	// SegmentInterval is the stream time after which each store opens a new
	// segment and closes its oldest, ≥ 1ms. YAML: a duration such as "1h"
	// or "1d".
	SegmentInterval Duration `yaml:"segment_interval" json:"segment_interval_ns"`
	// RebalancesPerDay is how many rebalances move tasks per day, in [0, MaxCount].
	RebalancesPerDay float64 `yaml:"rebalances_per_day" json:"rebalances_per_day"`
	// RebalanceShare is the share of tasks moved by a rebalance, in (0, 1];
	// default 1 (every task moves).
	RebalanceShare float64 `yaml:"rebalance_share" json:"rebalance_share"`
	// CloseFailureRate is the share of store closes that fail, in [0, 1].
	CloseFailureRate float64 `yaml:"close_failure_rate" json:"close_failure_rate"`
	// Budget is the memory budget in bytes, ≥ 0; 0 means none. YAML: a
	// number of bytes or a size such as "4GiB" or "512MiB".
	Budget Bytes `yaml:"budget" json:"budget_bytes"`
	// Horizon is how far the plan projects, in (0, MaxHorizon]; default 30
	// days. YAML: a duration such as "30d" or "720h".
	Horizon Duration `yaml:"horizon" json:"horizon_ns"`
}

// DefaultTopology returns the defaults a topology file is decoded over:
// every task moves per rebalance and the horizon is 30 days. The counts and
// the segment interval have no default.
func DefaultTopology() Topology {
	return Topology{RebalanceShare: 1, Horizon: Duration(30 * Day)}
}

// TopologyKeys returns the topology file's field names, in order.
func TopologyKeys() []string {
	return []string{"name", "tasks", "stores_per_task", "live_segments", "segment_interval", "rebalances_per_day",
		"rebalance_share", "close_failure_rate", "budget", "horizon"}
}

// LoadTopology reads and parses a topology file over DefaultTopology. It does
// not validate: apply overrides, then call Validate. Errors wrap
// ErrInvalidTopology and name the path.
func LoadTopology(path string) (Topology, error) {
	b, err := strictyaml.ReadFile(path, MaxTopologyBytes)
	if err != nil {
		return Topology{}, fmt.Errorf("%w: %w", ErrInvalidTopology, err)
	}
	t, err := ParseTopology(b)
	if err != nil {
		return Topology{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTopology decodes one YAML topology document over DefaultTopology.
// Unknown fields, wrong types, non-finite numbers, several documents and an
// empty document are errors wrapping ErrInvalidTopology. Values are not
// validated: call Validate.
func ParseTopology(data []byte) (Topology, error) {
	if len(data) > MaxTopologyBytes {
		return Topology{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalidTopology, MaxTopologyBytes)
	}
	t := DefaultTopology()
	err := strictyaml.DecodeOne(data, &t, "topology", "plan.", map[string][]string{"plan.Topology": TopologyKeys()})
	if err != nil {
		return Topology{}, fmt.Errorf("%w: %w", ErrInvalidTopology, err)
	}
	return t, nil
}

// Validate reports every invalid field by name. The error wraps
// ErrInvalidTopology.
func (t Topology) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	count := func(field string, v int) {
		switch {
		case v < 1:
			bad(field, "%d must be ≥ 1", v)
		case v > MaxCount:
			bad(field, "%d is above %d", v, MaxCount)
		}
	}
	count("tasks", t.Tasks)
	count("stores_per_task", t.StoresPerTask)
	count("live_segments", t.LiveSegments)
	if t.SegmentInterval <= 0 {
		bad("segment_interval", "%s must be positive (a duration such as \"1h\")", t.SegmentInterval)
	} else if time.Duration(t.SegmentInterval) < MinSegmentInterval {
		bad("segment_interval", "%s is below %s", t.SegmentInterval, MinSegmentInterval)
	}
	finite := func(field string, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad(field, "%v is not a finite number", v)
			return false
		}
		return true
	}
	if finite("rebalances_per_day", t.RebalancesPerDay) {
		switch {
		case t.RebalancesPerDay < 0:
			bad("rebalances_per_day", "%v must be ≥ 0", t.RebalancesPerDay)
		case t.RebalancesPerDay > MaxCount:
			bad("rebalances_per_day", "%v is above %d", t.RebalancesPerDay, MaxCount)
		}
	}
	if finite("rebalance_share", t.RebalanceShare) && (t.RebalanceShare <= 0 || t.RebalanceShare > 1) {
		bad("rebalance_share", "%v must be in (0, 1]", t.RebalanceShare)
	}
	if finite("close_failure_rate", t.CloseFailureRate) && (t.CloseFailureRate < 0 || t.CloseFailureRate > 1) {
		bad("close_failure_rate", "%v must be in [0, 1]", t.CloseFailureRate)
	}
	if t.Budget < 0 {
		bad("budget", "%d must be ≥ 0 bytes", int64(t.Budget))
	}
	if t.Horizon <= 0 {
		bad("horizon", "%s must be positive (a duration such as \"30d\")", t.Horizon)
	} else if time.Duration(t.Horizon) > MaxHorizon {
		bad("horizon", "%s is beyond %d days", t.Horizon, int(MaxHorizon/Day))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidTopology, errors.Join(errs...))
}

// Set sets one field from its string form, as a file would (key is the YAML
// name). Errors wrap ErrInvalidTopology and name the key.
func (t *Topology) Set(key, value string) error {
	wrap := func(err error) error { return fmt.Errorf("%w: %s: %w", ErrInvalidTopology, key, err) }
	var err error
	switch key {
	case "name":
		t.Name = value
	case "tasks":
		t.Tasks, err = strconv.Atoi(value)
	case "stores_per_task":
		t.StoresPerTask, err = strconv.Atoi(value)
	case "live_segments":
		t.LiveSegments, err = strconv.Atoi(value)
	case "segment_interval":
		var d Duration
		d, err = parseDuration(value)
		t.SegmentInterval = d
	case "rebalances_per_day":
		t.RebalancesPerDay, err = parseFinite(value)
	case "rebalance_share":
		t.RebalanceShare, err = parseFinite(value)
	case "close_failure_rate":
		t.CloseFailureRate, err = parseFinite(value)
	case "budget":
		var b Bytes
		b, err = parseBytes(value)
		t.Budget = b
	case "horizon":
		var d Duration
		d, err = parseDuration(value)
		t.Horizon = d
	default:
		return fmt.Errorf("%w: unknown field %q (valid fields: %s)", ErrInvalidTopology, key, strings.Join(TopologyKeys(), ", "))
	}
	if err != nil {
		return wrap(err)
	}
	return nil
}

func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%v is not a finite number", v)
	}
	return v, nil
}

// Duration is a time.Duration that YAML writes as "1h" or "30d" (a day is
// 24 h) and JSON as integer nanoseconds.
type Duration time.Duration

// String formats d in days when it is a whole number of days, else as
// time.Duration does without zero minutes and seconds ("1h", "1h30m").
func (d Duration) String() string {
	if d != 0 && time.Duration(d)%Day == 0 {
		return fmt.Sprintf("%dd", time.Duration(d)/Day)
	}
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Days returns d in days.
func (d Duration) Days() float64 { return float64(d) / float64(Day) }

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a duration string (see units.ParseDuration).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a duration must be a string such as \"1h\" or \"30d\"", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// Bytes is a size in bytes that YAML and flags accept as units.ParseBytes
// reads it: a plain number or with a unit ("4GiB").
type Bytes int64

// String formats b scaled by 1024.
func (b Bytes) String() string { return units.FormatBytes(float64(b)) }

// MarshalYAML writes b as a plain number of bytes.
func (b Bytes) MarshalYAML() (any, error) { return int64(b), nil }

// UnmarshalYAML reads a size (see units.ParseBytes).
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a size must be a number of bytes or a string such as \"4GiB\"", n.Line)
	}
	v, err := parseBytes(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = v
	return nil
}

func parseDuration(s string) (Duration, error) {
	d, err := units.ParseDuration(s)
	return Duration(d), err
}

func parseBytes(s string) (Bytes, error) {
	b, err := units.ParseBytes(s)
	return Bytes(b), err
}
