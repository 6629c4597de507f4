package workload

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files and known-answer vectors in testdata")

// valueVector is one known answer of RecordValue, as testdata/values.json
// holds it for both executors (the JVM child asserts the same file).
type valueVector struct {
	Seed       uint64 `json:"seed"`
	ValueBytes int    `json:"value_bytes"`
	Task       int    `json:"task"`
	Store      int    `json:"store"`
	Key        string `json:"key"`
	Ts         int64  `json:"ts"`
	Ver        int64  `json:"ver"`
	Hex        string `json:"hex"`
}

// valueCases are the inputs of the known answers: lengths around the 8-byte
// word (1, 7, 8, 9, 128), the old-format seed (ts 0, ver 0), large seeds,
// timestamps and versions that wrap in uint64, a key with bytes above 0x7f.
var valueCases = []valueVector{
	{Seed: 20616, ValueBytes: 128, Task: 0, Store: 0, Key: "key-000000", Ts: 0, Ver: 0},
	{Seed: 20616, ValueBytes: 128, Task: 3, Store: 1, Key: "key-000499", Ts: 20000, Ver: 1},
	{Seed: 1, ValueBytes: 1, Task: 0, Store: 0, Key: "key-000001", Ts: 1, Ver: 1},
	{Seed: 1, ValueBytes: 7, Task: 1, Store: 2, Key: "key-000042", Ts: 400, Ver: 7},
	{Seed: 1, ValueBytes: 8, Task: 1, Store: 2, Key: "key-000042", Ts: 400, Ver: 7},
	{Seed: 1, ValueBytes: 9, Task: 1, Store: 2, Key: "key-000042", Ts: 400, Ver: 7},
	{Seed: 18446744073709551615, ValueBytes: 16, Task: 65535, Store: 255, Key: "key-999999", Ts: 9223372036854775807, Ver: 9223372036854775807},
	{Seed: 12345678901234567890, ValueBytes: 24, Task: 7, Store: 3, Key: "k\u00e9y", Ts: -1, Ver: 123456789},
}

func TestRecordValueKnownAnswers(t *testing.T) {
	path := "testdata/values.json"
	if *update {
		out := make([]valueVector, len(valueCases))
		for i, c := range valueCases {
			c.Hex = hex.EncodeToString(RecordValue(c.Seed, c.ValueBytes, c.Task, c.Store, c.Key, c.Ts, c.Ver))
			out[i] = c
		}
		b, err := json.MarshalIndent(out, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var want []valueVector
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, len(valueCases))
	for _, w := range want {
		got := RecordValue(w.Seed, w.ValueBytes, w.Task, w.Store, w.Key, w.Ts, w.Ver)
		require.Len(t, got, w.ValueBytes)
		require.Equal(t, w.Hex, hex.EncodeToString(got), "RecordValue(%d, %d, %d, %d, %q, %d, %d)",
			w.Seed, w.ValueBytes, w.Task, w.Store, w.Key, w.Ts, w.Ver)
	}
}

func TestKey(t *testing.T) {
	require.Equal(t, "key-000000", Key(0))
	require.Equal(t, "key-000499", Key(499))
	require.Equal(t, "key-1234567", Key(1234567))
}
