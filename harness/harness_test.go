package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// TestParentSurvivesChildCrash: children that abort or exit without a summary
// are reported with a clear error, and the remaining models still run.
func TestParentSurvivesChildCrash(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	for _, tc := range []struct {
		script, want string
	}{
		{"kill -ABRT $$", "killed by signal aborted"},
		{"echo 'Assertion last_ref failed' >&2; exit 3", "exited with status 3; last output: Assertion last_ref failed"},
		{"exit 0", "ended without a summary"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			out, err := Run(context.Background(), Config{Scenario: sc, Models: []string{"leaky", "fixed"},
				Engines: shellChild(tc.script), StateRoot: t.TempDir()})
			require.ErrorIs(t, err, ErrChild)
			require.Len(t, out.Runs, 2, "the second model runs after the first one's child failed")
			for _, r := range out.Runs {
				assert.Contains(t, r.Error, tc.want)
			}
			assert.False(t, out.Interrupted)
		})
	}
}

func TestPreflightNamesTheLimitARunNeeds(t *testing.T) {
	sc, err := scenarios.Get("scale")
	require.NoError(t, err)
	need := NeededFDs(sc)
	assert.GreaterOrEqual(t, need, 64*32*FDsPerDB, "every live segment, plus pinned DBs")
	assert.LessOrEqual(t, need, 20000, "2,048 live segments within a 20,000-FD limit")
	require.NoError(t, Preflight(sc), "the catalogue's scale scenario fits this machine's limit")
	require.NoError(t, sc.Set("tasks=100"))
	err = Preflight(sc)
	require.ErrorIs(t, err, ErrLimits)
	assert.Contains(t, err.Error(), "ulimit -n")
	assert.Contains(t, err.Error(), "100 tasks × 1 stores × 32 live segments")
}

// shellEngine is an engine whose child is a shell script (/bin/sh -c): the
// parent's side of the protocol with a child that misbehaves as told.
type shellEngine struct{ script string }

func (shellEngine) Name() string                      { return "a shell script" }
func (shellEngine) Runs(spec.RunName) bool            { return true }
func (shellEngine) Capabilities() engine.Capabilities { return engine.Capabilities{HeapProfile: true} }
func (shellEngine) Preflight(spec.RunName) error      { return nil }
func (e shellEngine) Command(spec.RunName, string) ([]string, func(), error) {
	return []string{"/bin/sh", "-c", e.script}, func() {}, nil
}

// shellChild is Config.Engines for a shell script's children.
func shellChild(script string) []engine.Engine { return []engine.Engine{shellEngine{script}} }
