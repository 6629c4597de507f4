package main

import (
	"github.com/rocksleak/rocksleak/internal/bytesize"
)

// signedBytes and humanBytes: bytes for people (see package bytesize).
func signedBytes(b int64) string  { return bytesize.Signed(float64(b)) }
func humanBytes(b float64) string { return bytesize.Format(b) }
