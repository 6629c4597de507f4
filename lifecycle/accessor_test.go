package lifecycle_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
)

// TestDualAccessorConvertsAndMigratesOnRead mirrors Kafka's
// DualColumnFamilyAccessor.get: a value found only in the old CF is converted
// by the store's valueConverter (TimestampedBytesStore.convertToTimestampedFormat
// or HeadersBytesStore.convertToHeaderFormat), written to the new CF, deleted
// from the old one, and the converted bytes are returned.
func TestDualAccessorConvertsAndMigratesOnRead(t *testing.T) {
	minusOne := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} // NO_TIMESTAMP, big-endian
	tests := []struct {
		layout lifecycle.Layout
		want   []byte
	}{
		{lifecycle.Migrating, append(append([]byte(nil), minusOne...), "v-old"...)},
		{lifecycle.Timestamped, append(append([]byte(nil), minusOne...), "v-old"...)},
		{lifecycle.MigratingWindowHeaders, append([]byte{0x00}, "v-old"...)},
	}
	for _, tc := range tests {
		t.Run(string(tc.layout), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			seedOldFormat(t, dir) // "old-0".."old-9" → "v-old" in DEFAULT
			env := lifecycle.NewEnv(nil)
			s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Layout: tc.layout, Model: lifecycle.AllFixes})
			require.NoError(t, err)
			require.True(t, s.Dual(), "old-format data in DEFAULT: upgrade mode")

			key := []byte("old-3")
			old, ok, err := s.OldCFValue(key)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "v-old", string(old), "seeded in the old format")

			got, err := s.Get(key)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "the read returns the converted value")

			old, _, err = s.OldCFValue(key)
			require.NoError(t, err)
			assert.Nil(t, old, "the old CF no longer holds the key")
			moved, err := s.NewCFValue(key)
			require.NoError(t, err)
			assert.Equal(t, tc.want, moved, "the new CF holds the converted value")

			again, err := s.Get(key)
			require.NoError(t, err)
			assert.Equal(t, tc.want, again, "a second read is served by the new CF, not converted twice")

			other, _, err := s.OldCFValue([]byte(fmt.Sprintf("old-%d", 4)))
			require.NoError(t, err)
			assert.Equal(t, "v-old", string(other), "keys not read stay in the old CF")

			require.NoError(t, s.Close())
			assert.Zero(t, env.Ledger.LiveTotal())
		})
	}
}
