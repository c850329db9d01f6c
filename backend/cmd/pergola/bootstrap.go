package main

import (
	"context"
	"log/slog"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/config"
)

// bootstrap applies PERGOLA_BOOTSTRAP_* and tells the operator, in the log,
// how to get in when the result is not what they may expect: an empty
// database nobody can sign in to, or a bootstrap token that a database
// with users does not know (which then gets 401).
func bootstrap(ctx context.Context, ident *identityapp.Service, cfg config.Config, log *slog.Logger) error {
	out, err := ident.Bootstrap(ctx, identityapp.BootstrapInput{
		Token: cfg.BootstrapToken, Email: cfg.BootstrapEmail, Password: cfg.BootstrapPassword,
	})
	if err != nil {
		return err
	}
	switch out {
	case identityapp.BootstrapCreated:
		log.Info("bootstrapped an empty database: the administrator can use PERGOLA_BOOTSTRAP_TOKEN as an API token"+
			passwordHint(cfg), "admin_email", cfg.BootstrapEmail)
	case identityapp.BootstrapNotRequested:
		log.Warn("the database has no users and PERGOLA_BOOTSTRAP_TOKEN is not set, so nobody can sign in: "+
			"set PERGOLA_BOOTSTRAP_TOKEN to an API token of your choice (and PERGOLA_BOOTSTRAP_PASSWORD for the console) "+
			"and restart; the administrator's e-mail is PERGOLA_BOOTSTRAP_EMAIL", "admin_email", cfg.BootstrapEmail)
	case identityapp.BootstrapTokenIgnored:
		log.Warn("PERGOLA_BOOTSTRAP_TOKEN was not applied: the database already has users, and the bootstrap only runs on an "+
			"empty one; this token is unknown (or revoked or expired) and gets 401. To get in, sign in to the console as "+
			"an administrator, or run `pergola token --email ADMIN_EMAIL` with this server's database settings to print a "+
			"new token", "admin_email", cfg.BootstrapEmail)
	}
	return nil
}

func passwordHint(cfg config.Config) string {
	if cfg.BootstrapPassword == "" {
		return " (PERGOLA_BOOTSTRAP_PASSWORD is not set, so there is no console password)"
	}
	return " and sign in to the console with PERGOLA_BOOTSTRAP_EMAIL and PERGOLA_BOOTSTRAP_PASSWORD"
}
