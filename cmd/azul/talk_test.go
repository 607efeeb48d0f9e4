package main

import (
	"strings"
	"testing"
)

// TestTalkCommands: azul say writes to the table, azul messages lists
// it with the author, the time and the version; a spectator of a public
// game with the players' chat writes nothing and reads nothing; mute and
// unmute say what they did; the log shows the message.
func TestTalkCommands(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL, "--public")
	eve := newUser(t, srv.URL)
	eve.register("Eve")

	out := ana.must("say", id, "good", "luck,", "Bob")
	if !strings.HasPrefix(out, "Written to the table (version ") {
		t.Fatalf("azul say printed %q", out)
	}
	out = bob.must("messages", id)
	if !strings.HasPrefix(out, "Ana, ") || !strings.Contains(out, "(version ") || !strings.HasSuffix(strings.TrimSpace(out), "): good luck, Bob") {
		t.Fatalf("azul messages printed %q", out)
	}
	if out := eve.must("messages", id); strings.TrimSpace(out) != "No messages." {
		t.Fatalf("a spectator reads %q", out)
	}
	if msg := eve.wantCode(exitNotAllow, "say", id, "hello"); !strings.Contains(msg, "Only the players") {
		t.Fatalf("a spectator's say: %q", msg)
	}
	if msg := ana.wantCode(exitUsage, "say", id); msg == "" {
		t.Fatal("azul say without a text said nothing")
	}
	if out := bob.must("mute", id); !strings.Contains(out, "is muted for you") {
		t.Fatalf("azul mute printed %q", out)
	}
	if out := bob.must("messages", id); !strings.Contains(out, "You have muted") {
		t.Fatalf("azul messages of a muted game printed %q", out)
	}
	if out := bob.must("unmute", id); !strings.Contains(out, "no longer muted") {
		t.Fatalf("azul unmute printed %q", out)
	}
	if log := bob.must("log", id); !strings.Contains(log, "good luck, Bob") {
		t.Fatalf("the log does not show the message: %q", log)
	}
	if log := eve.must("log", id); strings.Contains(log, "good luck") {
		t.Fatalf("the log shows a spectator the players' chat: %q", log)
	}
	// With --public-chat, spectators read along.
	_, carl, pub := newTwoPlayerGame(t, srv.URL, "--public", "--public-chat")
	carl.must("say", pub, "hello watchers")
	if out := eve.must("messages", pub); !strings.Contains(out, "Bob, ") || !strings.Contains(out, "hello watchers") {
		t.Fatalf("a spectator of a public chat reads %q", out)
	}
}
