package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// probe is a glibc probe that released released of rssBefore.
func probe(rssBefore, released int64) *schema.Retention {
	return &schema.Retention{Allocator: "glibc", Action: "malloc_trim(0)", Lifecycles: 300, RSSBefore: rssBefore,
		RSSAfter: rssBefore - released, Released: released, NativeHeapBefore: 30 << 20, NativeHeapAfter: 30 << 20,
		AllocatorFreeBefore: 14 << 20, AllocatorFreeAfter: 13 << 20}
}

// TestReportRetentionTable: a result whose runs carry the probe gets the section "Allocator retention at the end",
// one row per model with its figures; a result without (the golden ones, made before the probe) gets none.
func TestReportRetentionTable(t *testing.T) {
	r := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(r)), "Allocator retention")
	require.GreaterOrEqual(t, len(r.Models), 2)
	r.Runs[r.Models[0]].Retention = probe(50<<20, 1<<20)
	r.Runs[r.Models[1]].Retention = &schema.Retention{Allocator: "jemalloc", Action: "arena.4096.purge",
		Error: "measure: jemalloc mallctl arena.4096.purge: no such file or directory"}
	md := string(ReportMarkdown(r))
	i := strings.Index(md, "## Allocator retention at the end")
	require.GreaterOrEqual(t, i, 0, md)
	sec := md[i:]
	sec = sec[:strings.Index(sec[3:], "\n## ")+3]
	assert.Contains(t, sec, "| "+r.Models[0]+" | glibc | `malloc_trim(0)` | 50.0 MiB | 49.0 MiB | +1.00 MiB (2%) | 14.0 MiB → 13.0 MiB | 30.0 MiB |")
	assert.Contains(t, sec, r.Models[1]+": the probe failed: measure: jemalloc mallctl arena.4096.purge")
}

// TestSummaryMentionsLargeRetention: the terminal summary names a model whose probe released at least 10% of its RSS
// (and at least 1 MiB), and no other.
func TestSummaryMentionsLargeRetention(t *testing.T) {
	for _, tc := range []struct {
		name             string
		rssBefore, freed int64
		large            bool
	}{
		{"2% of RSS", 50 << 20, 1 << 20, false},
		{"20% of RSS", 50 << 20, 10 << 20, true},
		{"10% of RSS, under 1 MiB", 5 << 20, 512 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := readTestResult(t, "smoke")
			m := r.Models[0]
			r.Runs[m].Retention = probe(tc.rssBefore, tc.freed)
			assert.Equal(t, tc.large, LargeRetention(r.Runs[m].Retention))
			s := Summary(r)
			if tc.large {
				assert.Contains(t, s, m+": 10.0 MiB of its 50.0 MiB RSS (20%) was free memory the allocator held")
			} else {
				assert.NotContains(t, s, "allocator retention")
			}
		})
	}
}
