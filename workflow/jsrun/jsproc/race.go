//go:build race

package jsproc

// raceBuild is true in binaries built with the race detector, whose
// shadow memory takes far more address space than any hard limit allows:
// their workers run without RLIMIT_DATA.
const raceBuild = true
