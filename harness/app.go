package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
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

// preflightApp checks, before any model runs, that each model can run the app (when there is one): its engine
// runs applications (engine.Capabilities.App), the app's classpath holds no other Kafka version than the model's,
// and the child loads the app's classes (the child's --check-app: the application's class and methods, its config
// setter).
func preflightApp(cfg Config, runs []modelRun) error {
	app := cfg.App
	if app == nil {
		return nil
	}
	for _, r := range runs {
		if r.err != nil {
			return r.err
		}
		e, err := engine.For(cfg.Engines, r.rn)
		if err != nil {
			return err
		}
		if !e.Capabilities().App {
			return fmt.Errorf("%w: model %s: %s does not run an application: run it on the JVM engine (--models kafka-<version>)", ErrBadApp, r.name, e.Name())
		}
		// The JVM child applies the synthetic leak to a scenario's stores only (Executor): an application's
		// stores are Kafka's, opened by its TopologyTestDriver. RocksJava's read-options fix it applies to both
		// (Instance; AppStores, which finds an application's RocksDB instances in the driver's stores).
		if r.rn.Synthetic {
			return fmt.Errorf("%w: model %s: the synthetic leak is not applied to an application's stores: run "+
				"kafka-%s", ErrBadApp, r.name, r.rn.KafkaVersion)
		}
		tmp, err := os.MkdirTemp("", "rocksleak-check-app-")
		if err != nil {
			return err
		}
		err = checkApp(e, r, app, cfg.Scenario, tmp)
		os.RemoveAll(tmp)
		if err != nil {
			return err
		}
	}
	return nil
}

// checkApp checks one model's classpath and classes (see preflightApp); tmp is the child's scratch directory.
func checkApp(e engine.Engine, r modelRun, app *App, sc scenarios.Scenario, tmp string) error {
	line, done, err := e.Command(r.rn, tmp)
	defer done()
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	var kafkaCP []string
	for i, a := range line {
		if a == "-cp" && i+1 < len(line) {
			kafkaCP = strings.Split(line[i+1], string(os.PathListSeparator))
		}
	}
	if err := userapp.CheckClasspath(app.Job.Classpath, r.rn.KafkaVersion, userapp.RocksDBVersionOf(kafkaCP)); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadApp, r.name, err)
	}
	return checkAppClasses(line, r, app, sc, tmp)
}

// checkAppClasses runs the child with --check-app on the app's job: status 2 names what is missing.
func checkAppClasses(line []string, r modelRun, app *App, sc scenarios.Scenario, tmp string) error {
	model := r.name
	job, err := json.Marshal(Job{Scenario: sc, Model: model, RunName: r.rn, StateDir: tmp, App: &app.Job})
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
