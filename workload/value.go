package workload

import (
	"encoding/binary"
	"fmt"
)

// Key is the record key of key index k (0 ≤ k < key_spread): "key-%06d".
func Key(k int) string { return fmt.Sprintf("key-%06d", k) }

// RecordValue is the value of key at timestamp ts and version ver in store
// store of task task, n bytes long: deterministic, so that a changelog keeps
// only (key, ts, ver) and an executor can verify and replay. Both executors
// compute it (the JVM child ports it bit for bit; testdata/values.json holds
// known answers both sides assert):
//
//	h := seed ^ task<<40 ^ store<<32 ^ ver*0x9e3779b97f4a7c15 ^ ts   (uint64, wrapping)
//	for each byte c of key: h = (h ^ c) * 0x100000001b3
//	for each 8-byte word i of the value: h = SplitMix64(h); word i = h, little endian
//	(the last word is truncated to n)
func RecordValue(seed uint64, n, task, store int, key string, ts, ver int64) []byte {
	b := make([]byte, n)
	h := seed ^ uint64(task)<<40 ^ uint64(store)<<32 ^ uint64(ver)*0x9e3779b97f4a7c15 ^ uint64(ts)
	for _, c := range []byte(key) {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	for i := 0; i < n; i += 8 {
		h = SplitMix64(h)
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], h)
		copy(b[i:], w[:])
	}
	return b
}

// SplitMix64 is one step of Steele, Lea and Flood's SplitMix64 finaliser
// (the increment 0x9e3779b97f4a7c15 added first).
func SplitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
