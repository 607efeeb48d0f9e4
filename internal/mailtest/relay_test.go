package mailtest_test

import (
	"fmt"
	"net/smtp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
)

// TestRelayReadsBackWhatItTakes: the relay refuses the deliveries it is
// told to fail with a temporary 451, then keeps each mail with its
// envelope and the game, version, seat and kind its Message-ID names;
// Wait finds it, and a wait for a mail that never comes fails.
func TestRelayReadsBackWhatItTakes(t *testing.T) {
	t.Parallel()
	r := mailtest.StartRelay(t)
	r.FailNext(1)
	id := compose.MessageID(compose.Sender{Domain: mailtest.Domain}, "g1", 7, 1, compose.KindTurn)
	raw := "From: azuld@mail.test\r\nTo: ana@example.org\r\nSubject: Your turn\r\nMessage-ID: " + id + "\r\n\r\nIt is your turn.\r\n"
	send := func() error {
		return smtp.SendMail(r.Addr, nil, "bounce+abc@mail.test", []string{"ana@example.org"}, []byte(raw))
	}
	if err := send(); err == nil || !strings.HasPrefix(err.Error(), "451") {
		t.Fatalf("the first delivery: %v, want 451", err)
	}
	if err := send(); err != nil {
		t.Fatal(err)
	}
	m := r.Wait(t, "turn", func(m mailtest.Mail) bool { return m.Kind == compose.KindTurn })
	if m.Game != "g1" || m.Version != 7 || m.Seat != 1 || m.From != "bounce+abc@mail.test" || !slices.Equal(m.To, []string{"ana@example.org"}) ||
		m.Header.Get("Subject") != "Your turn" || !strings.Contains(m.Text, "It is your turn.") {
		t.Fatalf("read back as %+v", m)
	}
	r.OnceEach(t)

	// A wait that runs out fails its test and says what the relay has.
	var failed fakeT
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.WaitWithin(&failed, 50*time.Millisecond, "game over", func(m mailtest.Mail) bool { return m.Kind == compose.KindGameOver })
	}()
	<-done
	if !strings.Contains(failed.msg, "no game over mail arrived") || !strings.Contains(failed.msg, "turn v7 seat 1") {
		t.Fatalf("a wait that ran out says %q", failed.msg)
	}
}

// TestRelayRequiresAuth: with RequireAuth, a client that does not log in
// is refused, one with the wrong password too, and one with the right
// one delivers.
func TestRelayRequiresAuth(t *testing.T) {
	t.Parallel()
	r := mailtest.StartRelay(t)
	r.RequireAuth("azuld", "secret")
	msg := []byte("From: azuld@mail.test\r\nTo: ana@example.org\r\nSubject: hi\r\n\r\nhello\r\n")
	if err := smtp.SendMail(r.Addr, nil, "azuld@mail.test", []string{"ana@example.org"}, msg); err == nil {
		t.Fatal("a client that did not log in delivered")
	}
	host, _, _ := strings.Cut(r.Addr, ":")
	if err := smtp.SendMail(r.Addr, smtp.PlainAuth("", "azuld", "wrong", host), "azuld@mail.test", []string{"ana@example.org"}, msg); err == nil {
		t.Fatal("a wrong password delivered")
	}
	if err := smtp.SendMail(r.Addr, smtp.PlainAuth("", "azuld", "secret", host), "azuld@mail.test", []string{"ana@example.org"}, msg); err != nil {
		t.Fatal(err)
	}
	if n := len(r.All()); n != 1 {
		t.Fatalf("the relay kept %d mails, want 1", n)
	}
}

// fakeT records the failure of a wait; Fatalf ends the goroutine as
// testing.T's does.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
