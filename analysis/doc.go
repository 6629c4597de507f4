// Package analysis turns a run's samples into figures: per-signal fits, each
// model's leak verdict, pairwise comparisons, the attribution of the leaky
// model's growth to the two leaks, calibration against a known synthetic leak,
// and the sequential (early) verdict that lets a run stop once it is settled.
//
// It is pure Go: it reads schema samples, computes with stats, and
// fills the figures of a schema.Result. Rendering is package results'.
package analysis
