package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MCPStdio bounds the stdio MCP servers administrators register: each
// runs in a bubblewrap sandbox (PERGOLA_BWRAP) with these limits.
type MCPStdio struct {
	// Idle is how long a server's process lives after its last call.
	Idle time.Duration `yaml:"mcp_stdio_idle"`
	// Memory is the address space of each of its processes, in MiB.
	MemoryMiB int `yaml:"mcp_stdio_memory_mib"`
	// CPU is the CPU time of each of its processes over its life.
	CPU time.Duration `yaml:"mcp_stdio_cpu"`
}

// DefaultMCPStdio returns the defaults: 5 minutes idle, 1 GiB, 5 minutes
// of CPU.
func DefaultMCPStdio() MCPStdio {
	return MCPStdio{Idle: 5 * time.Minute, MemoryMiB: 1024, CPU: 5 * time.Minute}
}

func applyMCPStdioEnv(m *MCPStdio, env Lookup) error {
	durations := map[string]*time.Duration{"PERGOLA_MCP_STDIO_IDLE": &m.Idle, "PERGOLA_MCP_STDIO_CPU": &m.CPU}
	for key, dst := range durations {
		if v, ok := env(key); ok {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be a duration such as 5m, got %q", key, v)
			}
			*dst = d
		}
	}
	if v, ok := env("PERGOLA_MCP_STDIO_MEMORY_MIB"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_MCP_STDIO_MEMORY_MIB: must be an integer, got %q", v)
		}
		m.MemoryMiB = n
	}
	return nil
}

func (m MCPStdio) validate() error {
	if m.Idle < 100*time.Millisecond {
		return fmt.Errorf("PERGOLA_MCP_STDIO_IDLE: must be at least 100ms, got %s", m.Idle)
	}
	if m.MemoryMiB < 64 || m.MemoryMiB > 64<<10 {
		return fmt.Errorf("PERGOLA_MCP_STDIO_MEMORY_MIB: must be between 64 and 65536, got %d", m.MemoryMiB)
	}
	if m.CPU < time.Second {
		return fmt.Errorf("PERGOLA_MCP_STDIO_CPU: must be at least 1s, got %s", m.CPU)
	}
	return nil
}
