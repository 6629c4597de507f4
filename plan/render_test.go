package plan

import (
	"bytes"
	"encoding/json"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
)

// goldenPlan is the orders-aggregator topology on costs shaped like the
// measured leaky model's: native heap grows, RSS does not significantly.
func goldenPlan(t *testing.T) *Plan {
	native := costs{perLifecycle: est(9_238, 5_482, 12_994), perFailedClose: est(458_888, 371_351, 546_425),
		total: est(29_666, 28_967, 30_364)}
	rss := costs{perLifecycle: est(25_722, 22_865, 28_579), perFailedClose: est(33_774, -31_378, 98_926),
		total: est(1_000, -500, 2_500)}
	leaky := runWith("leaky", native, rss, 595_809, 698_767)
	yes := true
	leaky.Verdict = &schema.Verdict{Leak: &yes}
	fixed := runWith("fixed", costs{total: pt(0)}, costs{total: pt(0)}, 456_136, 1_389_227)
	topo, err := ParseTopology([]byte(ordersAggregator))
	require.NoError(t, err)
	p, err := Project(resultWith(t, leaky, fixed), topo, Options{Model: "leaky", ResidentModel: "fixed"})
	require.NoError(t, err)
	p.Source.Path, p.Source.ScenarioDigest = "runs/x/result.json", "d1e5"
	return p
}

func TestRenderGolden(t *testing.T) {
	p := goldenPlan(t)
	for _, f := range Formats() {
		render, err := RendererFor(f)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, render(&buf, p))
		golden.Check(t, filepath.Join("testdata", "plan."+map[string]string{"text": "txt", "json": "json"}[f]), buf.Bytes())
	}
	_, err := RendererFor("csv")
	assert.ErrorContains(t, err, `unknown format "csv"`)
}

func TestJSONIsRaw(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, goldenPlan(t)))
	var got struct {
		Topology struct {
			SegmentIntervalNs int64 `json:"segment_interval_ns"`
			BudgetBytes       int64 `json:"budget_bytes"`
		} `json:"topology"`
		Events struct {
			Lifecycles float64 `json:"lifecycles_per_day"`
		} `json:"events"`
		Signals []struct {
			Signal       string `json:"signal"`
			Sustained    bool   `json:"sustained"`
			GrowthPerDay Range  `json:"growth_per_day"`
			UntilBudget  struct {
				Expected Reach `json:"expected"`
			} `json:"until_budget"`
		} `json:"signals"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.Equal(t, int64(3_600_000_000_000), got.Topology.SegmentIntervalNs)
	assert.Equal(t, int64(4<<30), got.Topology.BudgetBytes)
	assert.Equal(t, 2304.0, got.Events.Lifecycles)
	require.Len(t, got.Signals, 2)
	assert.True(t, got.Signals[0].Sustained)
	assert.InDelta(t, 9_238*2304+458_888*23.04, got.Signals[0].GrowthPerDay.Expected, 1e-3)
	assert.Equal(t, ReachDays, got.Signals[0].UntilBudget.Expected.State)
	assert.False(t, got.Signals[1].Sustained)
	assert.Equal(t, ReachNever, got.Signals[1].UntilBudget.Expected.State)
}

func TestPNG(t *testing.T) {
	for name, mut := range map[string]func(*Plan){
		"with budget":    func(*Plan) {},
		"without budget": func(p *Plan) { p.Budget = 0 },
		"flat":           func(p *Plan) { p.Signals[0].GrowthPerDay = Range{} },
	} {
		t.Run(name, func(t *testing.T) {
			p := goldenPlan(t)
			mut(p)
			b, err := PNG(p)
			require.NoError(t, err)
			img, err := png.Decode(bytes.NewReader(b))
			require.NoError(t, err)
			assert.Equal(t, 768, img.Bounds().Dx())
			assert.Equal(t, 480, img.Bounds().Dy())
		})
	}
	var _ = analysis.SignalRSS
}
