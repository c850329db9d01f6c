//go:build !race

package jsproc

// raceBuild is true in binaries built with the race detector (race.go).
const raceBuild = false
