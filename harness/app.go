package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/userapp"
)

// App is the user's application a run puts under test (rocksleak run --app): every model is a kafka-<version>
// JVM child that runs the app under Kafka's TopologyTestDriver instead of the scenario's op stream
// (docs/your-application.md).
type App struct {
	Job userapp.Job
	// Redactor replaces the secrets of the app's properties in everything the parent keeps of a child's output
	// (its standard error, errors); the child redacts its own events.
	Redactor *userapp.Redactor
}

// ErrBadApp means the app cannot run as given: a model of the Go engine, a classpath that holds another Kafka
// version than a model's, a class not found (the command exits 2 before any model runs).
var ErrBadApp = errors.New("the application cannot run as given")

// preflightApp checks, before any model runs, that each model can run the app: a kafka-<version> model, no other
// Kafka version in the app's classpath, and the app's classes as the child loads them (the child's --check-app:
// the application's class and methods, its config setter).
func (j JVM) preflightApp(models []string, app *App, sc scenarios.Scenario) error {
	if app == nil {
		return nil
	}
	for _, m := range models {
		rn, err := spec.ParseRunName(m, scenarios.ModelNames())
		if err != nil {
			return err
		}
		if !rn.JVM() {
			return fmt.Errorf("%w: model %s: an application runs on the JVM engine only (--models kafka-<version>)", ErrBadApp, m)
		}
		line, err := j.Command(rn.KafkaVersion, os.TempDir())
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		var kafkaCP []string
		for i, a := range line {
			if a == "-cp" && i+1 < len(line) {
				kafkaCP = strings.Split(line[i+1], string(os.PathListSeparator))
			}
		}
		if err := userapp.CheckClasspath(app.Job.Classpath, rn.KafkaVersion, userapp.RocksDBVersionOf(kafkaCP)); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadApp, m, err)
		}
		if err := checkAppClasses(line, m, app, sc); err != nil {
			return err
		}
	}
	return nil
}

// checkAppClasses runs the child with --check-app on the app's job: status 2 names what is missing.
func checkAppClasses(line []string, model string, app *App, sc scenarios.Scenario) error {
	job, err := json.Marshal(Job{Scenario: sc, Model: model, StateDir: os.TempDir(), App: &app.Job})
	if err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	var out bytes.Buffer
	cmd := exec.Command(line[0], append(line[1:], "--check-app")...)
	cmd.Stdin = bytes.NewReader(append(job, '\n'))
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.ExtraFiles = []*os.File{devnull}
	err = cmd.Run()
	msg := app.Redactor.Redact(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "rocksleak child: ")))
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		return fmt.Errorf("%w: %s: %s", ErrBadApp, model, msg)
	}
	return fmt.Errorf("%s: checking the application's classes: %s%s", model, DescribeExit(err), LastLines(msg))
}

// redactRun keeps the app's secrets out of what the parent keeps of a child's run.
func (a *App) redactRun(run *schema.ModelRun) {
	if a == nil {
		return
	}
	run.Error = a.Redactor.Redact(run.Error)
	if s := run.Summary; s != nil {
		s.Error = a.Redactor.Redact(s.Error)
		for i, e := range s.TaskErrorList {
			s.TaskErrorList[i] = a.Redactor.Redact(e)
		}
	}
}
