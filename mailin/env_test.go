package mailin_test

import (
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
)

// outMail is a mail the relay received.
type outMail = mailtest.Mail

// env is one test's database, command path, outbox, relay and SMTP
// listener (mailtest.Env), with the helpers of this package's tests.
type env struct{ *mailtest.Env }

// newEnv is an env whose outbox delivers with two workers.
func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{mailtest.Start(t, pg.NewDatabase(t), mailtest.Options{Workers: 2})}
}

// newEnvWithConfig is newEnv with workers whose notifier's configuration
// tune changes (verification of addresses, say).
func newEnvWithConfig(t testing.TB, workers int, tune func(*notify.Config)) *env {
	t.Helper()
	return &env{mailtest.Start(t, pg.NewDatabase(t), mailtest.Options{Workers: workers, Notify: []func(*notify.Config){tune}})}
}

// newEnvWithInbound is newEnv with workers whose inbound mail's
// configuration tune changes (the checks of SPF and DKIM, the limits of
// table talk).
func newEnvWithInbound(t testing.TB, workers int, tune func(*mailin.Config)) *env {
	t.Helper()
	return &env{mailtest.Start(t, pg.NewDatabase(t), mailtest.Options{Workers: workers, Inbound: []func(*mailin.Config){tune}})}
}
