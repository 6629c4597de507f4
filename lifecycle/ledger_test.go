package lifecycle

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLedgerSafeForConcurrentUse checks Ledger's documented contract: it is
// safe for concurrent use. Owners on several goroutines create and destroy
// real RocksDB options and read options (each object has one owner, as in the
// stores) while a reader (a sampler's view) takes the counts. Under the race
// detector (make test's -race pass) a ledger method without its lock is a
// reported data race; without it, the counts at the end must still add up.
func TestLedgerSafeForConcurrentUse(t *testing.T) {
	const owners, objects = 4, 200
	l := NewLedger()
	done := make(chan struct{})
	var reader sync.WaitGroup
	reader.Add(1)
	go func() {
		defer reader.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			live := l.LiveTotal()
			assert.GreaterOrEqual(t, live, int64(0))
			assert.LessOrEqual(t, live, int64(owners*objects*2))
			_ = l.Live()
			_ = l.Created()
			_ = l.ReleasedLate()
			_ = l.String()
		}
	}()
	var wg sync.WaitGroup
	for o := 0; o < owners; o++ {
		wg.Add(1)
		go func(o int) {
			defer wg.Done()
			for i := 0; i < objects; i++ {
				_, opts := l.newOptions("options")
				_, ro := l.newReadOptions("read-options")
				assert.NoError(t, opts.Close())
				if o%2 == 0 {
					ro.ReleaseLate() // a safety net's release, as RocksDB.close() of skipped handles
				} else {
					assert.NoError(t, ro.Close())
				}
			}
		}(o)
	}
	wg.Wait()
	close(done)
	reader.Wait()
	assert.Zero(t, l.LiveTotal(), l.String())
	assert.Equal(t, map[Kind]int64{KindOptions: owners * objects, KindReadOptions: owners * objects}, l.Created())
	assert.Equal(t, map[Kind]int64{KindReadOptions: owners / 2 * objects}, l.ReleasedLate())
}
