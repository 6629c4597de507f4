//go:build cgo

package main

import (
	"fmt"
	"time"

	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/userapp"
)

// loadApp reads --app (docs/your-application.md): the application's file and its properties' secrets. The run's
// scenario keeps its sampling and stop condition; its name becomes the app's, and its models the app file's Kafka
// versions unless --models names others.
func loadApp(o runOptions, sc *scenarios.Scenario) (*harness.App, error) {
	if o.app == "" {
		return nil, nil
	}
	a, err := userapp.Load(o.app)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if err := a.ResolveMaven(jvm.DefaultDir()); err != nil {
		return nil, usagef("--app: %s: %v", o.app, err)
	}
	red, err := userapp.NewRedactor(a.Job.Properties)
	if err != nil {
		return nil, usagef("--app: properties: %v", err)
	}
	sc.Name = "app-" + a.Name
	sc.Description = fmt.Sprintf("Your application %s (app file %s) on Kafka's own TopologyTestDriver, with its "+
		"properties (%s): one lifecycle is one task's life. A driver is made (the task's stores open, Kafka calling "+
		"the config setter), %d steps of the application's pipe run, each advancing stream time by %s and the "+
		"driver's wall clock by %s (punctuators fire), and the driver is closed (the stores close, as when the task "+
		"migrates). The scenario's store, workload, failure and rebalance fields are not used (result.json keeps them); its sampling and stop condition are.",
		a.Job.Class, a.Path, a.Job.Properties, a.Job.StepsPerLifecycle,
		time.Duration(a.Job.StreamTimePerStepMs)*time.Millisecond, time.Duration(a.Job.WallClockPerStepMs)*time.Millisecond)
	if o.models == "" {
		models := a.Models()
		if o.allocator != "" {
			if models, err = withAllocators(models, o.allocator); err != nil {
				return nil, err
			}
		}
		sc.Models = models
	}
	return &harness.App{Job: a.Job, Redactor: red}, sc.Validate()
}
