// Package procnice lowers the CPU priority of running processes: code
// nodes that run long are demoted so that those that wake up, and the
// server's own work, go first.
package procnice

// Demoted is the nice value code that runs long is demoted to: the
// lowest priority.
const Demoted = 19
