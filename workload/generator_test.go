package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

func scenario(t *testing.T, name string, sets ...string) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Get(name)
	require.NoError(t, err)
	for _, kv := range sets {
		require.NoError(t, sc.Set(kv))
	}
	return sc
}

func take(t *testing.T, sc scenarios.Scenario, seed int64, n int) []Op {
	t.Helper()
	g, err := New(sc, seed)
	require.NoError(t, err)
	ops := make([]Op, 0, n)
	for op := range g.All() {
		if len(ops) == n {
			break
		}
		ops = append(ops, op)
	}
	return ops
}

// upToStep returns the ops before step op number steps+1.
func upToStep(t *testing.T, sc scenarios.Scenario, seed int64, steps int64) []Op {
	t.Helper()
	g, err := New(sc, seed)
	require.NoError(t, err)
	var ops []Op
	for {
		op := g.Next()
		if op.Kind == KindStep && op.Step > steps {
			return ops
		}
		ops = append(ops, op)
	}
}

func count(ops []Op, k Kind) int {
	n := 0
	for _, op := range ops {
		if op.Kind == k {
			n++
		}
	}
	return n
}

func encode(ops []Op) []byte {
	var b []byte
	for _, op := range ops {
		b = op.AppendJSON(b)
	}
	return b
}

// TestGolden pins the first ops of kafka-20616 (its start and first two
// steps), and of kafka-20616 at one record per step through its first
// rebalance (arms, closes, reopens): a change to the schedule shows here.
// go test ./workload -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		ops  func() []Op
	}{
		{"testdata/kafka-20616.first.jsonl", func() []Op { return upToStep(t, scenario(t, "kafka-20616"), 20616, 2) }},
		{"testdata/kafka-20616.records_per_step=1.jsonl", func() []Op {
			return upToStep(t, scenario(t, "kafka-20616", "records_per_step=1"), 20616, 50)
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := encode(tc.ops())
			if *update {
				require.NoError(t, os.WriteFile(tc.file, got, 0o644))
			}
			want, err := os.ReadFile(tc.file)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		})
	}
}

// TestSchedule checks the shape of each kind of scenario's schedule.
func TestDeterministic(t *testing.T) {
	sc := scenario(t, "kafka-20616")
	a := encode(upToStep(t, sc, 7, 30))
	require.Equal(t, a, encode(upToStep(t, sc, 7, 30)), "same scenario and seed, same schedule")
	require.NotEqual(t, a, encode(upToStep(t, sc, 8, 30)), "another seed, another schedule")
}

// TestKeysAsTopologyDrew: the record keys are the stream engine/goengine's topology
// drew them from (PCG(seed, 0x5eed), one IntN(key_spread) per put in order).
func TestKeysAsTopologyDrew(t *testing.T) {
	sc := scenario(t, "kafka-20616")
	ops := take(t, sc, 3, 2000)
	want := []string{}
	g, _ := New(sc, 3)
	for range 5 {
		want = append(want, Key(g.keys.IntN(sc.KeySpread)))
	}
	var got []string
	for _, op := range ops {
		if op.Kind == KindPut && len(got) < 5 {
			got = append(got, op.Key)
		}
	}
	require.Equal(t, want, got)
}

// TestBoundedMemory: the generator holds at most one step's ops.
func TestBoundedMemory(t *testing.T) {
	sc := scenario(t, "kafka-20616")
	g, err := New(sc, 1)
	require.NoError(t, err)
	perStep := sc.Tasks*sc.StoresPerTask*sc.RecordsPerStep + 64
	for range 200_000 {
		g.Next()
		require.LessOrEqual(t, cap(g.queue), 2*perStep)
	}
}

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct{ set, field string }{
		{"tasks=0", "tasks"},
		{"key_spread=0", "key_spread"},
		{"step_ms=0", "step_ms"},
		{"retention_ms=0", "retention_ms"},
	} {
		sc := scenario(t, "kafka-20616")
		require.NoError(t, sc.Set(tc.set))
		_, err := New(sc, 1)
		require.ErrorIs(t, err, scenarios.ErrInvalid, tc.set)
		require.ErrorContains(t, err, tc.field+":")
	}
}

// TestEncodeDecode: every kind round-trips through its JSON line.
func TestEncodeDecode(t *testing.T) {
	for _, op := range []Op{
		{Kind: KindStep, Step: 3, StreamTime: 60000},
		{Kind: KindSeedOld, Task: 1, Store: 2},
		{Kind: KindOpen, Task: 1, Store: 0, StreamTime: 40000, InitFailures: 2},
		{Kind: KindPut, Task: 3, Store: 1, Key: "key-000042", Ts: 20400, Ver: 9},
		{Kind: KindPut, Task: 0, Store: 0, Key: "key-000001", Ts: 1, Ver: 1, InitFailures: 6},
		{Kind: KindCommit, Task: 2},
		{Kind: KindArm, Task: 2, Store: 1, Fault: spec.FaultSticky},
		{Kind: KindClose, Task: 0, Store: 1},
		{Kind: KindRebalance, Tasks: []int{0, 3}},
		{Kind: KindSamplePoint},
		{Kind: KindEnd},
	} {
		line := op.AppendJSON(nil)
		require.True(t, bytes.HasSuffix(line, []byte("}\n")), "%s", line)
		got, err := Decode(line)
		require.NoError(t, err, "%s", line)
		require.Equal(t, op, got, "%s", line)
	}
	require.Equal(t, `{"op":"put","task":3,"store":1,"key":"key-000042","ts":20400,"ver":9}`+"\n",
		string(Op{Kind: KindPut, Task: 3, Store: 1, Key: "key-000042", Ts: 20400, Ver: 9}.AppendJSON(nil)))
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"task":1}`, `missing field "op"`},
		{`{"op":"jump"}`, `unknown operation "jump"`},
		{`{"op":"put","task":1,"store":0,"ts":5,"ver":1}`, `"key"`},
		{`{"op":"put","task":1,"store":0,"key":"k","ts":5,"ver":0}`, `ver (0 < 1)`},
		{`{"op":"open","task":-1,"store":0,"stream_time":0,"init_failures":0}`, `task (-1 < 0)`},
		{`{"op":"open","task":1,"store":0,"stream_time":0}`, `"init_failures"`},
		{`{"op":"arm","task":1,"store":0,"fault":"flaky"}`, `field "fault": unknown close failure kind "flaky"`},
		{`{"op":"rebalance"}`, `"tasks"`},
		{`{"op":"step","step":1`, `unexpected end`},
	} {
		_, err := Decode([]byte(tc.line))
		require.ErrorIs(t, err, ErrBadOp, tc.line)
		require.ErrorContains(t, err, tc.want, tc.line)
	}
	// Unknown fields are ignored (a later protocol may add some).
	op, err := Decode([]byte(`{"op":"commit","task":1,"flush":true}`))
	require.NoError(t, err)
	require.Equal(t, Op{Kind: KindCommit, Task: 1}, op)
}

func TestReaderAndWriteTo(t *testing.T) {
	sc := scenario(t, "kafka-20616")
	g, err := New(sc, 5)
	require.NoError(t, err)
	// WriteTo stops at the first failed write: a writer that takes 100 KiB
	// (one 64 KiB buffer, about 900 ops).
	w := &limitWriter{max: 100 << 10}
	require.ErrorIs(t, g.WriteTo(w, nil), errFull)
	want := take(t, sc, 5, 900)
	r := NewReader(bytes.NewReader(w.b.Bytes()))
	for i, op := range want {
		got, err := r.Next()
		require.NoError(t, err, "op %d", i)
		require.Equal(t, op, got, "op %d", i)
	}
	// A stop channel ends it without an error.
	stop := make(chan struct{})
	close(stop)
	require.NoError(t, g.WriteTo(io.Discard, stop))
	// The reader's end and its errors.
	r = NewReader(strings.NewReader("{\"op\":\"sample_point\"}\n\n{\"op\":\"end\"}\n{\"op\":\"nope\"}\n"))
	for _, k := range []Kind{KindSamplePoint, KindEnd} {
		op, err := r.Next()
		require.NoError(t, err)
		require.Equal(t, k, op.Kind)
	}
	_, err = r.Next()
	require.ErrorContains(t, err, "op line 4:")
	_, err = NewReader(strings.NewReader("")).Next()
	require.ErrorIs(t, err, io.EOF)
}

var errFull = errors.New("full")

type limitWriter struct {
	b   bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errFull
	}
	return w.b.Write(p)
}

// TestReadBack: with read_back every put is preceded by a get of its key and
// timestamp and every commit by one range per store of its task; without it
// (the negative control) there is no read op, and the writes are the same.
func TestReadBack(t *testing.T) {
	base := scenario(t, "kafka-20616", "stores_per_task=2")
	reads := scenario(t, "kafka-20616", "stores_per_task=2", "read_back=true")
	plain, withReads := upToStep(t, base, 7, 12), upToStep(t, reads, 7, 12)
	require.Zero(t, count(plain, KindGet)+count(plain, KindRange), "no reads without read_back")
	require.Equal(t, count(plain, KindPut), count(withReads, KindPut))
	require.Equal(t, count(withReads, KindPut), count(withReads, KindGet))
	require.Equal(t, 2*count(withReads, KindCommit), count(withReads, KindRange))
	var writes []Op
	for i, op := range withReads {
		switch op.Kind {
		case KindGet:
			next := withReads[i+1]
			require.Equal(t, KindPut, next.Kind, "op %d", i)
			require.Equal(t, []any{op.Task, op.Store, op.Key, op.Ts}, []any{next.Task, next.Store, next.Key, next.Ts})
		case KindRange:
			continue
		default:
			writes = append(writes, op)
		}
	}
	require.Equal(t, encode(plain), encode(writes), "the reads add ops, they change no other")
	ranges := 0
	for i := len(withReads) - 1; i >= 0; i-- {
		if withReads[i].Kind == KindCommit {
			require.Equal(t, KindRange, withReads[i-1].Kind)
			require.Equal(t, KindRange, withReads[i-2].Kind)
			ranges++
		}
	}
	require.Positive(t, ranges)
}
