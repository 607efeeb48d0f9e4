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

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/internal/apiclient"
)

// Exit codes (docs/cli.md, the table of exit codes).
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
	langFlag   string

	// The reader's language and zone: the catalogue, the move words and
	// the localizer chosen from them (see chooseLanguage).
	cat   *i18n.Catalogue
	words *notation.Words
	l     *i18n.Localizer
	// pseudo offers the pseudo-locale (--lang en-XA); only tests set it,
	// to find text that bypasses the catalogue.
	pseudo bool
	// messages, when set, are the catalogue and move words already
	// loaded (with the pseudo-locale when pseudo is set); when nil, the
	// run loads its own.
	messages *messages

	// Resolved before a command runs.
	configFile string
	cfg        config
	// tokenFrom says where the token came from, for the user ("in
	// AZUL_TOKEN").
	tokenFrom string
	api       *apiclient.ClientWithResponses
	http      *http.Client
	// The game whose events are described, and the language the server
	// described them in (events.go).
	gameRuleset apiclient.Ruleset
	gameNames   map[int]string
	eventsLang  string
	// rulesets caches the rule set of each game asked about.
	rulesets map[uuid.UUID]apiclient.Ruleset
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

// usage is a usage error (exit 2) in the reader's words.
func (a *app) usage(id string, pairs ...any) error {
	return &exitError{code: exitUsage, err: errors.New(a.l.T(id, pairs...))}
}

// fail is an error (exit code) in the reader's words.
func (a *app) fail(code int, id string, pairs ...any) error {
	return &exitError{code: code, err: errors.New(a.l.T(id, pairs...))}
}

// wrapf is an error in the reader's words with its cause after it.
func (a *app) wrapf(err error, id string, pairs ...any) error {
	return fmt.Errorf("%s: %w", a.l.T(id, pairs...), err)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	a := &app{stdio: io, getenv: getenv}
	return a.execute(ctx, args)
}

func (a *app) execute(ctx context.Context, args []string) int {
	if err := a.loadLanguage(args); err != nil {
		fmt.Fprintf(a.err, "azul: %s\n", err)
		return exitFailure
	}
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
		ee = &exitError{code: exitUsage, err: a.cobraError(err)}
	}
	if !a.jsonOut || ee.code == exitUsage || ee.code == exitNetwork || !isProblem(ee.err) {
		msg := ee.err.Error()
		var mm *mismatchError
		if errors.As(ee.err, &mm) {
			msg = a.l.T("cli.error.mismatch", "Detail", mm.detail)
		}
		fmt.Fprintf(a.err, "azul: %s\n", msg)
	}
	if ee.code == exitUsage {
		fmt.Fprintln(a.err, a.l.T("cli.run_help"))
	}
	return ee.code
}

// rootCommand builds the command tree, its help in the reader's
// language.
func (a *app) rootCommand() *cobra.Command {
	l := a.l
	root := &cobra.Command{
		Use:               "azul",
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.setup(cmd) },
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFlag, "config", "", l.T("cli.flag.config"))
	pf.StringVar(&a.serverFlag, "server", "", l.T("cli.flag.server"))
	pf.StringVar(&a.tokenFlag, "token", "", l.T("cli.flag.token"))
	pf.BoolVar(&a.jsonOut, "json", false, l.T("cli.flag.json"))
	pf.BoolVar(&a.noColor, "no-color", false, l.T("cli.flag.no_color"))
	pf.StringVar(&a.langFlag, "lang", "", l.T("cli.flag.lang"))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: a.cobraError(err)}
	})
	root.AddCommand(
		a.registerCommand(), a.loginCommand(),
		a.gamesCommand(), a.newCommand(), a.joinCommand(),
		a.showCommand(), a.movesCommand(), a.moveCommand(),
		a.watchCommand(), a.replayCommand(),
		a.takebackCommand(), a.answerCommand("accept"), a.answerCommand("decline"), a.hintCommand(),
		a.rematchCommand(),
		a.sayCommand(), a.messagesCommand(), a.muteCommand("mute", true), a.muteCommand("unmute", false),
		a.logCommand(), a.exportCommand(), a.verifyCommand(),
		a.accountCommand(),
		a.ratingsCommand(), a.profileCommand(), a.botsCommand(),
	)
	a.localize(root, "root")
	a.localizeHelp(root)
	return root
}

// setup resolves the configuration and builds the API client.
func (a *app) setup(cmd *cobra.Command) error {
	if err := a.checkLangFlag(); err != nil {
		return err
	}
	path := a.configFlag
	if path == "" {
		p, err := configPath(a.getenv)
		if err != nil {
			return a.usage("cli.error.no_config_dir")
		}
		path = p
	}
	a.configFile = path
	cfg, err := loadConfig(path)
	if err != nil {
		return &exitError{code: exitFailure, err: a.wrapf(err, "cli.error.config", "Path", path)}
	}
	a.cfg = cfg
	if v := a.getenv("AZUL_SERVER"); v != "" {
		a.cfg.Server = v
	}
	a.tokenFrom = a.l.T("cli.token_from.config", "Path", path)
	if v := a.getenv("AZUL_TOKEN"); v != "" {
		a.cfg.Token, a.tokenFrom = v, a.l.T("cli.token_from.env")
	}
	if a.serverFlag != "" {
		a.cfg.Server = a.serverFlag
	}
	if a.tokenFlag != "" {
		a.cfg.Token, a.tokenFrom = a.tokenFlag, a.l.T("cli.token_from.flag")
	}
	if a.cfg.Token != cfg.Token {
		// Another token than the configuration's: its account's
		// language is not the one kept there.
		a.cfg.Language, a.cfg.TimeZone = "", ""
	}
	if a.cfg.Server == "" {
		a.cfg.Server = defaultServer
	}
	a.cfg.Server = strings.TrimRight(a.cfg.Server, "/")
	if !strings.HasPrefix(a.cfg.Server, "http://") && !strings.HasPrefix(a.cfg.Server, "https://") {
		return a.usage("cli.error.server_url", "Server", a.cfg.Server)
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
		return a.usage("cli.error.server_url", "Server", a.cfg.Server)
	}
	a.api = api
	a.learnProfile(cmd.Context())
	return nil
}

// authorize adds the token to every request that has one to send.
func (a *app) authorize(_ context.Context, req *http.Request) error {
	if a.cfg.Token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.Token)
	}
	req.Header.Set("User-Agent", "azul-cli")
	// Problems come back in the reader's language.
	req.Header.Set("Accept-Language", a.acceptLanguage())
	return nil
}

// needToken fails early, with a hint, when a command needs a player.
func (a *app) needToken() error {
	if a.cfg.Token == "" {
		return a.fail(exitNotAllow, "cli.error.not_signed_in")
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
		return a.wrapf(err, "cli.error.write")
	}
	return nil
}

// args checks the number of positional arguments (a usage error).
func (a *app) args(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			return a.usage("cli.error.missing_args", "Command", cmd.Name(), "Usage", cmd.UseLine())
		case max >= 0 && len(args) > max:
			return a.usage("cli.error.too_many_args", "Command", cmd.Name(), "Usage", cmd.UseLine())
		}
		return nil
	}
}

// wrapRun makes every error of a command carry an exit code (1 unless it
// has one), so the root can tell them from cobra's usage errors.
// onGame is wrapRun for a command whose first argument is a game id: run
// gets the id checked, and all the arguments.
func (a *app) onGame(run func(cmd *cobra.Command, id uuid.UUID, args []string) error) func(*cobra.Command, []string) error {
	return a.wrapRun(func(cmd *cobra.Command, args []string) error {
		id, err := a.gameID(args[0])
		if err != nil {
			return err
		}
		return run(cmd, id, args)
	})
}

func (a *app) wrapRun(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
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
			return a.fail(exitFailure, "cli.error.interrupted")
		}
		return &exitError{code: exitFailure, err: err}
	}
}
