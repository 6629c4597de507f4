package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/schema"
)

// ErrMerge marks directories that do not make one sweep.
var ErrMerge = errors.New("cannot merge")

// Merge joins the reliability records parts, read from the directories dirs
// (one each), into the record the unsharded sweep writes for the same seeds:
// seeds in order, each tallied from its seed directory's result.json by
// AddSeed (and, with --replicate, its replicate/ run paired again by
// Replicates.Pair); only Runs (the seed directories' paths) differ. It prints
// each seed's progress line to w. The parts must be of one sweep (same
// scenario, models, first seed, seed count, --until-verdict and --replicate),
// none interrupted, and cover every seed exactly once; otherwise the error
// wraps ErrMerge.
func Merge(w io.Writer, parts []*schema.Reliability, dirs []string) (*schema.Reliability, *Replicates, error) {
	first := parts[0]
	seedDir := map[int64]string{}
	for i, p := range parts {
		if p.Scenario != first.Scenario || !slices.Equal(p.Models, first.Models) || p.FirstSeed != first.FirstSeed ||
			p.SeedCount != first.SeedCount || p.UntilVerdict != first.UntilVerdict || !slices.Equal(p.Replicate, first.Replicate) {
			return nil, nil, fmt.Errorf("%w: %s is not of the sweep of %s (scenario, models, seeds, --until-verdict or --replicate differ)",
				ErrMerge, dirs[i], dirs[0])
		}
		if p.Interrupted {
			return nil, nil, fmt.Errorf("%w: %s is an interrupted sweep (%d of its seeds finished): run that shard again",
				ErrMerge, dirs[i], len(p.Seeds))
		}
		for _, s := range p.Seeds {
			if prev, dup := seedDir[s]; dup {
				return nil, nil, fmt.Errorf("%w: seed %d is in both %s and %s", ErrMerge, s, prev, dirs[i])
			}
			seedDir[s] = filepath.Join(dirs[i], fmt.Sprintf("seed-%d", s))
		}
	}
	rep := New(first.Scenario, first.Models, first.FirstSeed, first.SeedCount, first.UntilVerdict)
	rep.Replicate = first.Replicate
	reps := NewReplicates(first.Replicate)
	for _, seed := range (Shard{1, 1}).Seeds(first.FirstSeed, first.SeedCount) {
		dir, ok := seedDir[seed]
		if !ok {
			return nil, nil, fmt.Errorf("%w: seed %d of the sweep (%d seeds from %d) is in none of the directories",
				ErrMerge, seed, first.SeedCount, first.FirstSeed)
		}
		res, err := schema.Read(filepath.Join(dir, "result.json"))
		if err != nil {
			return nil, nil, err
		}
		words := AddSeed(rep, seed, dir, res)
		if len(first.Replicate) > 0 {
			more, err := mergeReplicate(rep, reps, dir, res)
			if err != nil {
				return nil, nil, err
			}
			words = append(words, more...)
		}
		fmt.Fprintf(w, "seed %d: %s\n", seed, strings.Join(words, " "))
	}
	if len(seedDir) != first.SeedCount {
		return nil, nil, fmt.Errorf("%w: the directories hold %d seeds, the sweep has %d", ErrMerge, len(seedDir), first.SeedCount)
	}
	return rep, reps, nil
}

// mergeReplicate pairs a seed's replicate run (dir/replicate) with its first
// run (dir) from their result.json and samples.csv, as reliability paired
// them from the runs. A seed without a replicate directory is the seed whose
// replicate run failed.
func mergeReplicate(rep *schema.Reliability, reps *Replicates, dir string, first *schema.Result) ([]string, error) {
	repDir := filepath.Join(dir, "replicate")
	if _, err := os.Stat(filepath.Join(repDir, "result.json")); errors.Is(err, os.ErrNotExist) {
		return []string{"replicate=failed"}, nil
	}
	res, err := schema.Read(filepath.Join(repDir, "result.json"))
	if err != nil {
		return nil, err
	}
	once, err := schema.ReadSamplesCSV(filepath.Join(dir, "samples.csv"))
	if err != nil {
		return nil, err
	}
	again, err := schema.ReadSamplesCSV(filepath.Join(repDir, "samples.csv"))
	if err != nil {
		return nil, err
	}
	return reps.Pair(rep, first, once, res, again), nil
}
