package results

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
)

// TestSignalPlots checks the signals' plots are the ones analysis' registry
// declares, under the file names ReportMarkdown has always linked to.
func TestSignalPlots(t *testing.T) {
	var files []string
	for _, d := range analysis.Registered() {
		if d.Plot != nil {
			files = append(files, d.Plot.File)
		}
	}
	require.Equal(t, []string{PlotNativeHeap, PlotRSS}, files)
}
