package main

import (
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// perRocksDBOpen turns the costs of an application's run (rocksleak run --app), measured per task's life, into
// costs per RocksDB instance opened (a store or a window segment: the app's store_opens over its lifecycles), the
// lifecycle rocksleak plan projects onto a topology's stores and segments. The resident cost per open DB is already
// per open store. It returns whether r is an application's run; other results are left as they are.
func perRocksDBOpen(r *schema.Result) bool {
	app := false
	for _, run := range r.Runs {
		if run == nil || run.App == nil || run.App.StoreOpens <= 0 || run.Lifecycles <= 0 {
			continue
		}
		app = true
		k := float64(run.Lifecycles) / float64(run.App.StoreOpens)
		for sig, f := range run.Fits {
			f = scaleFit(f, k)
			if f.Total != nil {
				t := scaleFit(*f.Total, k)
				f.Total = &t
			}
			run.Fits[sig] = f
		}
	}
	return app
}

func scaled(e stats.Estimate, k float64) stats.Estimate {
	e.Value, e.Low, e.High, e.SE = e.Value*k, e.Low*k, e.High*k, e.SE*k
	return e
}

// scaleFit scales a fit's per-lifecycle figures by k.
func scaleFit(f schema.SignalFit, k float64) schema.SignalFit {
	f.PerLifecycle = scaled(f.PerLifecycle, k)
	f.BytesPerLifecycle *= k
	f.CI95 = [2]float64{f.CI95[0] * k, f.CI95[1] * k}
	return f
}
