package apitest

import (
	"github.com/sous-app/sous/internal/webhooks"
)

// Dispatcher returns a webhook dispatcher on the Env's database, clock and configuration, as
// `sous serve` runs one on every replica.
func (e *Env) Dispatcher() *webhooks.Dispatcher {
	return webhooks.NewDispatcher(webhooks.DispatcherOptions{
		Pool: e.Pool, Clock: e.Clock, AllowPrivate: e.Config.WebhookAllowPrivate,
	})
}

// DrainWebhooks dispatches every committed event and sends every queued delivery before
// returning: what a test calls instead of waiting for the background dispatcher.
func (e *Env) DrainWebhooks() {
	e.T.Helper()
	if err := e.Dispatcher().Drain(e.T.Context()); err != nil {
		e.T.Fatalf("drain webhooks: %v", err)
	}
}
