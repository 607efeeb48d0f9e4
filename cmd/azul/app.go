package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/azuld/azuld/internal/apiclient"
)

// Exit codes (README: "The azul command-line client").
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitRefused  = 3
	exitNetwork  = 4
	exitNotAllow = 5
)

// stdio are the streams a run reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// app is one run of the command: its streams, environment, flags and the
// API client built from them.
type app struct {
	stdio
	getenv func(string) string

	// Flags every command takes.
	configFlag string
	serverFlag string
	tokenFlag  string
	jsonOut    bool
	noColor    bool

	// Resolved before a command runs.
	configFile string
	cfg        config
	// tokenFrom says where the token came from, for the user ("in
	// AZUL_TOKEN").
	tokenFrom string
	api       *apiclient.ClientWithResponses
	http      *http.Client
	// me caches the caller's player id (whoAmI).
	me *string
	// strict makes a response the API description does not document an
	// error even when the client could cope (the tests set it).
	strict bool
}

// exitError carries the exit code of a failed command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usagef is a usage error (exit 2).
func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	a := &app{stdio: io, getenv: getenv}
	return a.execute(ctx, args)
}

func (a *app) execute(ctx context.Context, args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.in)
	root.SetOut(a.out)
	root.SetErr(a.err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Errors cobra makes itself: unknown commands and flags, wrong
		// numbers of arguments.
		ee = &exitError{code: exitUsage, err: err}
	}
	if !a.jsonOut || ee.code == exitUsage || ee.code == exitNetwork || !isProblem(ee.err) {
		fmt.Fprintf(a.err, "azul: %s\n", ee.err)
	}
	if ee.code == exitUsage {
		fmt.Fprintln(a.err, "Run 'azul --help' for usage.")
	}
	return ee.code
}

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "azul",
		Short: "Play Azul games on an azuld server from the terminal",
		Long: `azul creates, follows, plays, replays and verifies games on an azuld
server. The server and your token are read from $XDG_CONFIG_HOME/azul/config
(written by 'azul register' and 'azul login'), AZUL_SERVER and AZUL_TOKEN,
and --server and --token, each overriding those before it.

Exit codes: 0 success, 1 other failure, 2 usage error, 3 move or answer
refused by the game, 4 network failure, 5 not signed in or not allowed.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.setup(cmd) },
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFlag, "config", "", "configuration file (default $XDG_CONFIG_HOME/azul/config)")
	pf.StringVar(&a.serverFlag, "server", "", "azuld URL (default from AZUL_SERVER or the configuration)")
	pf.StringVar(&a.tokenFlag, "token", "", "bearer token (default from AZUL_TOKEN or the configuration)")
	pf.BoolVar(&a.jsonOut, "json", false, "print the API's JSON instead of text")
	pf.BoolVar(&a.noColor, "no-color", false, "no colours (also NO_COLOR=1)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usagef("%w", err) })
	root.AddCommand(
		a.registerCommand(), a.loginCommand(),
		a.gamesCommand(), a.newCommand(), a.joinCommand(),
		a.showCommand(), a.movesCommand(), a.moveCommand(),
		a.watchCommand(), a.replayCommand(),
		a.takebackCommand(), a.answerCommand("accept"), a.answerCommand("decline"),
		a.logCommand(), a.exportCommand(), a.verifyCommand(),
		a.accountCommand(),
	)
	return root
}

// setup resolves the configuration and builds the API client.
func (a *app) setup(_ *cobra.Command) error {
	path := a.configFlag
	if path == "" {
		p, err := configPath(a.getenv)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		path = p
	}
	a.configFile = path
	cfg, err := loadConfig(path)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	a.cfg = cfg
	if v := a.getenv("AZUL_SERVER"); v != "" {
		a.cfg.Server = v
	}
	a.tokenFrom = "in the configuration " + path
	if v := a.getenv("AZUL_TOKEN"); v != "" {
		a.cfg.Token, a.tokenFrom = v, "in AZUL_TOKEN"
	}
	if a.serverFlag != "" {
		a.cfg.Server = a.serverFlag
	}
	if a.tokenFlag != "" {
		a.cfg.Token, a.tokenFrom = a.tokenFlag, "given with --token"
	}
	if a.cfg.Server == "" {
		a.cfg.Server = defaultServer
	}
	a.cfg.Server = strings.TrimRight(a.cfg.Server, "/")
	if !strings.HasPrefix(a.cfg.Server, "http://") && !strings.HasPrefix(a.cfg.Server, "https://") {
		return usagef("the server %q is not an http:// or https:// URL", a.cfg.Server)
	}
	// No overall timeout: the event stream of watch lasts as long as the
	// user wants; connecting is bounded by the transport.
	a.http = &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}}
	api, err := apiclient.NewClientWithResponses(a.cfg.Server,
		apiclient.WithHTTPClient(a.http),
		apiclient.WithRequestEditorFn(a.authorize))
	if err != nil {
		return usagef("the server URL: %w", err)
	}
	a.api = api
	return nil
}

// authorize adds the token to every request that has one to send.
func (a *app) authorize(_ context.Context, req *http.Request) error {
	if a.cfg.Token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.Token)
	}
	req.Header.Set("User-Agent", "azul-cli")
	return nil
}

// needToken fails early, with a hint, when a command needs a player.
func (a *app) needToken() error {
	if a.cfg.Token == "" {
		return &exitError{code: exitNotAllow, err: errors.New("not signed in: run 'azul register NAME [EMAIL]' or 'azul login TOKEN' (or set AZUL_TOKEN)")}
	}
	return nil
}

// colour reports whether output gets ANSI colours: a terminal, and
// neither NO_COLOR nor --no-color.
func (a *app) colour() bool {
	if a.noColor || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(a.out)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the width of the terminal w is, 0 when it is none.
func terminalWidth(w any) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// printJSON writes a body as it came from the API, ending in a newline.
func (a *app) printJSON(body []byte) error {
	body = []byte(strings.TrimRight(string(body), "\n"))
	if _, err := fmt.Fprintf(a.out, "%s\n", body); err != nil {
		return fmt.Errorf("write the output: %w", err)
	}
	return nil
}

// args checks the number of positional arguments (a usage error).
func args(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			return usagef("%s: missing arguments (usage: %s)", cmd.Name(), cmd.UseLine())
		case max >= 0 && len(args) > max:
			return usagef("%s: too many arguments (usage: %s)", cmd.Name(), cmd.UseLine())
		}
		return nil
	}
}

// wrapRun makes every error of a command carry an exit code (1 unless it
// has one), so the root can tell them from cobra's usage errors.
// onGame is wrapRun for a command whose first argument is a game id: run
// gets the id checked, and all the arguments.
func onGame(run func(cmd *cobra.Command, id uuid.UUID, args []string) error) func(*cobra.Command, []string) error {
	return wrapRun(func(cmd *cobra.Command, args []string) error {
		id, err := gameID(args[0])
		if err != nil {
			return err
		}
		return run(cmd, id, args)
	})
}

func wrapRun(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if err == nil {
			return nil
		}
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		if errors.Is(err, context.Canceled) {
			return &exitError{code: exitFailure, err: errors.New("interrupted")}
		}
		return &exitError{code: exitFailure, err: err}
	}
}
