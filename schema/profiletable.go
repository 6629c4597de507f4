package schema

import "sort"

// ProfileTable is a "where the growth was allocated" table: a model's live-heap
// growth by allocating function, or (Minus set) one model's growth per
// lifecycle minus another's. The run half builds it from heap profiles
// (heapprof.Attribute) and keeps its rows in result.json as HeapProfile's
// Functions; the analysis half builds it again from those
// (results.ProfileGrowth, results.ProfileDiff). Bytes are raw.
type ProfileTable struct {
	Model, Minus      string // Minus is "" for one model's own growth
	Lifecycles        int64  // the lifecycles the growth spans
	TotalBytes        float64
	TotalPerLifecycle float64
	Rows              []ProfileRow // every function, by decreasing BytesPerLifecycle (see Finish)
}

// ProfileRow is one allocating function of a ProfileTable.
type ProfileRow struct {
	// Function is the allocating function, or "0x<addr> (<file>)" for an
	// address that did not symbolize.
	Function string
	// Bytes is the growth attributed to Function (negative: it shrank).
	Bytes float64
	// BytesPerLifecycle is Bytes over the table's Lifecycles.
	BytesPerLifecycle float64
	// Share is BytesPerLifecycle over the table's TotalPerLifecycle (0 when
	// that is 0).
	Share float64
}

// Finish sets every row's Share from the rows' BytesPerLifecycle and the
// table's TotalPerLifecycle, and sorts the rows by decreasing
// BytesPerLifecycle, ties by Function: the one share and order of every
// profile table.
func (t *ProfileTable) Finish() {
	for i := range t.Rows {
		if t.TotalPerLifecycle != 0 {
			t.Rows[i].Share = t.Rows[i].BytesPerLifecycle / t.TotalPerLifecycle
		}
	}
	sort.Slice(t.Rows, func(i, j int) bool {
		if t.Rows[i].BytesPerLifecycle != t.Rows[j].BytesPerLifecycle {
			return t.Rows[i].BytesPerLifecycle > t.Rows[j].BytesPerLifecycle
		}
		return t.Rows[i].Function < t.Rows[j].Function
	})
}
