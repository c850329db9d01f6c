package config

// applyPartsEnv reads the environment of each part of the settings kept
// in a file of its own (edge, cache, metrics, files, traces, knowledge, chat).
func applyPartsEnv(cfg *Config, env Lookup) error {
	for _, apply := range []func(Lookup) error{
		func(e Lookup) error { return applyEdgeEnv(&cfg.Edge, e) },
		func(e Lookup) error { return applyCacheEnv(&cfg.Cache, e) },
		func(e Lookup) error { return applyMetricsEnv(&cfg.Metrics, e) },
		func(e Lookup) error { return applyFilesEnv(&cfg.Files, e) },
		func(e Lookup) error { return applyTracesEnv(&cfg.Traces, e) },
		func(e Lookup) error { return applyKnowledgeEnv(&cfg.Knowledge, e) },
		func(e Lookup) error { return applySharesEnv(&cfg.Shares, e) },
		func(e Lookup) error { return applyChatEnv(&cfg.Chat, e) },
		func(e Lookup) error { return applyChannelRetriesEnv(&cfg.ChannelRetries, e) },
		func(e Lookup) error { return applyMCPStdioEnv(&cfg.MCPStdio, e) },
		func(e Lookup) error { return applyTriggersEnv(&cfg.Triggers, e) },
	} {
		if err := apply(env); err != nil {
			return err
		}
	}
	return nil
}

// validateParts checks each part of the settings kept in a file of its own.
func (c Config) validateParts() error {
	for _, validate := range []func() error{c.Edge.validate, c.Cache.validate, c.Metrics.validate,
		c.Files.validate, c.Traces.validate, c.Knowledge.validate, c.Shares.validate, c.Chat.validate, c.ChannelRetries.validate, c.MCPStdio.validate,
		c.Triggers.validate} {
		if err := validate(); err != nil {
			return err
		}
	}
	return nil
}
