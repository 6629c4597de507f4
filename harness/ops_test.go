package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/workload"
)

// TestChildReadsJobThenOps: a child's standard input is the job's line, then
// the schedule's op stream as the child reads it (here: a shell child that
// reads the job and 2,000 ops, keeps them and exits: the parent's writer
// stops at the broken pipe and the run ends). A protocol test: it passes
// under every model.
func TestChildReadsJobThenOps(t *testing.T) {
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "stdin")
	_, err = Run(context.Background(), Config{Scenario: sc, Models: []string{"leaky"}, Seed: 42,
		Engines: shellChild("head -n 2001 > " + out), StateRoot: t.TempDir()})
	require.ErrorIs(t, err, ErrChild, "the shell child sends no summary")

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	in := bufio.NewScanner(f)
	in.Buffer(nil, 1<<20)
	require.True(t, in.Scan())
	var job Job
	require.NoError(t, json.Unmarshal(in.Bytes(), &job))
	require.Equal(t, workload.OpsVersion, job.Ops)
	require.Equal(t, "leaky", job.Model)
	require.Equal(t, int64(42), job.Seed)
	require.Equal(t, spec.AllocatorGlibc, job.Allocator)
	require.Equal(t, "leaky", job.RunName.Model, "the run name, parsed")
	require.Empty(t, job.KafkaVersion)

	gen, err := workload.New(sc, 42)
	require.NoError(t, err)
	n := 0
	for in.Scan() {
		require.Equal(t, string(gen.Next().AppendJSON(nil)), in.Text()+"\n", "op %d", n)
		n++
	}
	require.Equal(t, 2000, n)
}
