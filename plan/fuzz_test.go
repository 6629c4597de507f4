package plan

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParseTopology parses arbitrary bytes as a topology file. It must never
// panic; every error wraps ErrInvalidTopology; a valid topology survives a
// YAML round trip and projects to finite numbers that render as text and
// JSON. The seed corpus is under testdata/fuzz/FuzzParseTopology.
func FuzzParseTopology(f *testing.F) {
	f.Add([]byte(ordersAggregator))
	c := costs{perLifecycle: est(9_238, 5_482, 12_994), perFailedClose: est(458_888, 371_351, 546_425),
		total: est(29_666, 28_967, 30_364)}
	r := resultWith(f, runWith("leaky", c, c, 595_809, 698_767))
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ParseTopology(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidTopology) {
				t.Fatalf("ParseTopology error does not wrap ErrInvalidTopology: %v", err)
			}
			return
		}
		if err := topo.Validate(); err != nil {
			if !errors.Is(err, ErrInvalidTopology) {
				t.Fatalf("Validate error does not wrap ErrInvalidTopology: %v", err)
			}
			return
		}
		b, err := yaml.Marshal(topo)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := ParseTopology(b)
		if err != nil {
			t.Fatalf("the topology written back does not parse: %v\n%s", err, b)
		}
		if back != topo {
			t.Fatalf("round trip changed the topology:\nbefore %#v\nafter  %#v\n%s", topo, back, b)
		}
		p, err := Project(r, topo, Options{})
		if err != nil {
			t.Fatalf("Project of a valid topology: %v", err)
		}
		for _, s := range p.Signals {
			for _, v := range []float64{s.GrowthPerDay.Low, s.GrowthPerDay.High, s.Resident, p.Events.Lifecycles} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite projection %v for %#v", v, topo)
				}
			}
			if g := s.GrowthPerDay; g.Low > g.Expected || g.Expected > g.High {
				t.Fatalf("growth out of order: %+v", g)
			}
		}
		if err := WriteText(io.Discard, p); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}
