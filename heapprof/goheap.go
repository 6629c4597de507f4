package heapprof

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

// GoHeapGrowth is the growth of a Go process's live heap between two of its heap profiles (runtime/pprof's
// "heap" profile, gzipped protobuf, as written by pprof.Lookup("heap").WriteTo(w, 0)): the last profile minus the
// first, sample by sample, so that `go tool pprof -top -sample_index=inuse_space` on the result lists the
// allocation sites whose live bytes grew (negative: shrank). Go's profiles are already unsampled by the runtime
// (each sample's values are scaled by its sampling rate), so the difference is an estimate of the bytes, with the
// runtime's sampling error (MemProfileRate).
func GoHeapGrowth(firstPath, lastPath string) (*profile.Profile, error) {
	read := func(path string) (*profile.Profile, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		p, err := profile.Parse(f)
		if err != nil {
			return nil, fmt.Errorf("heapprof: %s: %w", path, err)
		}
		return p, nil
	}
	first, err := read(firstPath)
	if err != nil {
		return nil, err
	}
	last, err := read(lastPath)
	if err != nil {
		return nil, err
	}
	first.Scale(-1)
	p, err := profile.Merge([]*profile.Profile{last, first})
	if err != nil {
		return nil, fmt.Errorf("heapprof: the Go heap's growth: %w", err)
	}
	return p, nil
}

// InuseSpaceIndex is the index of a Go heap profile's inuse_space values (bytes) in its samples' Value.
func InuseSpaceIndex(p *profile.Profile) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == "inuse_space" {
			return i, nil
		}
	}
	return -1, fmt.Errorf("heapprof: no inuse_space in the profile")
}

// InuseBytes sums a Go heap profile's inuse_space values (bytes; negative for a growth profile that shrank).
func InuseBytes(p *profile.Profile) (int64, error) {
	idx, err := InuseSpaceIndex(p)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range p.Sample {
		n += s.Value[idx]
	}
	return n, nil
}
