// Package userapp is the user's own application under test on the JVM engine (rocksleak run --app;
// docs/your-application.md): the app file that names its class, classpath, Kafka Streams properties and steps;
// the job the JVM child runs it from; the secrets of its properties, which nothing rocksleak writes may hold; and
// the check that its classpath brings no Kafka of another version. Pure Go: the run half (harness) and the
// command use it.
package userapp

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/internal/strictyaml"
	"github.com/rocksleak/rocksleak/internal/units"
)

// File is an app file as the user writes it (YAML). Relative paths are relative to the file's directory.
type File struct {
	// Class is the application's class: a public no-argument constructor, `public Topology topology(Properties)`
	// and `public int pipe(TopologyTestDriver, long step, Instant streamTime, Random)` (or long), returning the
	// records it piped.
	Class string `yaml:"class"`
	// Classpath lists the application's jars and class directories (Kafka itself not needed: the run's version is
	// put beside them).
	Classpath []string `yaml:"classpath"`
	// Maven lists the application's artifacts as Maven coordinates (group:artifact:version), resolved with their
	// runtime dependencies (Kafka's and RocksJava's left out: the run's version is put beside them) once, by Maven,
	// offline after (ResolveMaven).
	Maven []string `yaml:"maven"`
	// Properties is the application's Kafka Streams properties file, as the application uses it.
	Properties string `yaml:"properties"`
	// Kafka lists the Kafka versions to run it on when --models does not (default 4.3.1).
	Kafka []string `yaml:"kafka"`
	// StepsPerLifecycle is the number of pipe calls in one task's life (default 20).
	StepsPerLifecycle int `yaml:"steps_per_lifecycle"`
	// StreamTimePerStep and WallClockPerStep are how far the records' time and the driver's wall clock advance at
	// each step (defaults 1m and 10s).
	StreamTimePerStep string `yaml:"stream_time_per_step"`
	WallClockPerStep  string `yaml:"wall_clock_per_step"`
	// HangAfter is how long one step may run before the application is called hung (default 60s).
	HangAfter string `yaml:"hang_after"`
}

// Keys are the app file's fields, in order.
func Keys() []string {
	return []string{"class", "classpath", "maven", "properties", "kafka", "steps_per_lifecycle", "stream_time_per_step",
		"wall_clock_per_step", "hang_after"}
}

// Job is the app as the JVM child reads it (the job's "app" object; jvm/child's AppJob): absolute paths, times in
// milliseconds.
type Job struct {
	Class               string   `json:"class"`
	Classpath           []string `json:"classpath"`
	Properties          string   `json:"properties"`
	StepsPerLifecycle   int      `json:"steps_per_lifecycle"`
	StreamTimePerStepMs int64    `json:"stream_time_per_step_ms"`
	WallClockPerStepMs  int64    `json:"wall_clock_per_step_ms"`
	HangAfterMs         int64    `json:"hang_after_ms"`
	// MaxRSS is the RSS above which the child ends the run as a runaway allocation, naming the main thread's
	// frames (0: none; the parent's guard still watches from outside).
	MaxRSS int64 `json:"max_rss,omitempty"`
}

// App is a loaded app file: the child's job, the Kafka versions it names, and where it came from.
type App struct {
	Path string
	Name string // the file's base name without its extension
	// Maven are the app file's Maven coordinates, to resolve into Job.Classpath (ResolveMaven) before the run.
	Maven []string
	Kafka []string
	Job   Job
}

// DefaultKafka is the Kafka version an app file that names none runs on.
const DefaultKafka = "4.3.1"

const maxFileBytes = 64 << 10

// Load reads and checks an app file; an error names the file and the field.
func Load(path string) (App, error) {
	b, err := strictyaml.ReadFile(path, maxFileBytes)
	if err != nil {
		return App{}, fmt.Errorf("--app: %w", err)
	}
	if len(b) > maxFileBytes {
		return App{}, fmt.Errorf("--app: %s: larger than %d bytes", path, maxFileBytes)
	}
	var f File
	if err := strictyaml.DecodeOne(b, &f, "app", "userapp.", map[string][]string{"userapp.File": Keys()}); err != nil {
		return App{}, fmt.Errorf("--app: %s: %w", path, err)
	}
	a, err := f.resolve(filepath.Dir(path))
	if err != nil {
		return App{}, fmt.Errorf("--app: %s: %w", path, err)
	}
	a.Path = path
	a.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return a, nil
}

func (f File) resolve(dir string) (App, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		q, _ := filepath.Abs(filepath.Join(dir, p))
		return q
	}
	a := App{Kafka: f.Kafka, Job: Job{Class: f.Class, StepsPerLifecycle: f.StepsPerLifecycle}}
	if strings.TrimSpace(f.Class) == "" {
		return a, fmt.Errorf("class: missing (the application's class with topology(Properties) and pipe(...))")
	}
	if len(f.Classpath) == 0 && len(f.Maven) == 0 {
		return a, fmt.Errorf("classpath: missing (the application's jars and class directories, or maven: its coordinates)")
	}
	for _, c := range f.Maven {
		if !mavenCoordinate.MatchString(c) {
			return a, fmt.Errorf("maven: %q is not group:artifact:version", c)
		}
	}
	a.Maven = f.Maven
	for _, e := range f.Classpath {
		p := abs(e)
		if _, err := os.Stat(p); err != nil {
			return a, fmt.Errorf("classpath: %s does not exist (build the application first)", p)
		}
		a.Job.Classpath = append(a.Job.Classpath, p)
	}
	if f.Properties == "" {
		return a, fmt.Errorf("properties: missing (the application's Kafka Streams properties file)")
	}
	a.Job.Properties = abs(f.Properties)
	if _, err := os.Stat(a.Job.Properties); err != nil {
		return a, fmt.Errorf("properties: %w", err)
	}
	if len(a.Kafka) == 0 {
		a.Kafka = []string{DefaultKafka}
	}
	if a.Job.StepsPerLifecycle == 0 {
		a.Job.StepsPerLifecycle = 20
	}
	if a.Job.StepsPerLifecycle < 1 {
		return a, fmt.Errorf("steps_per_lifecycle: %d must be >= 1", f.StepsPerLifecycle)
	}
	for _, d := range []struct {
		field, value, def string
		to                *int64
	}{
		{"stream_time_per_step", f.StreamTimePerStep, "1m", &a.Job.StreamTimePerStepMs},
		{"wall_clock_per_step", f.WallClockPerStep, "10s", &a.Job.WallClockPerStepMs},
		{"hang_after", f.HangAfter, "60s", &a.Job.HangAfterMs},
	} {
		v := d.value
		if v == "" {
			v = d.def
		}
		t, err := units.ParseDuration(v)
		if err != nil || t < time.Millisecond {
			return a, fmt.Errorf("%s: %q is not a duration of at least 1ms such as %s", d.field, v, d.def)
		}
		*d.to = t.Milliseconds()
	}
	return a, nil
}

// mavenCoordinate is group:artifact:version (optionally group:artifact:packaging:version).
var mavenCoordinate = regexp.MustCompile(`^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?:[A-Za-z0-9_.+-]+$`)

// Models are the run names of the app's Kafka versions (kafka-<version>).
func (a App) Models() []string {
	out := make([]string, len(a.Kafka))
	for i, v := range a.Kafka {
		out[i] = "kafka-" + v
	}
	return out
}
