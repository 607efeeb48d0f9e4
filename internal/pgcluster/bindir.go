package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// requiredBinaries are the programs a cluster needs from a PostgreSQL
// installation: initdb creates the data directory, postgres is the server,
// and pg_ctl answers whether a server still runs on a data directory.
func requiredBinaries() []string { return []string{"initdb", "pg_ctl", "postgres"} }

// ErrNoBinaries is wrapped by every error that means no usable PostgreSQL
// installation was found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries not found")

// installHint tells an operator what to do when no binaries were found.
const installHint = "install the PostgreSQL server (Debian/Ubuntu: apt-get install postgresql; " +
	"macOS: brew install postgresql), or set AZUL_PG_BIN to the directory holding initdb, pg_ctl and postgres, " +
	"or set AZUL_DATABASE_URL to use an existing PostgreSQL server instead of a private cluster"

// FindBinDir returns the directory holding initdb, pg_ctl and postgres.
//
// A configured directory is used as given, and it is an error when it does
// not hold the three programs (a wrong setting should not be papered over by
// some other installation). Otherwise the search goes: the programs on PATH,
// then `pg_config --bindir`, then the highest /usr/lib/postgresql/<major>/bin
// (Debian and Ubuntu keep the server binaries there, off PATH).
func FindBinDir(ctx context.Context, configured string) (string, error) {
	return binFinder{
		lookPath: exec.LookPath,
		pgConfig: runPgConfig,
		libRoot:  "/usr/lib/postgresql",
	}.find(ctx, configured)
}

// findOrFetchBinDir searches the installed binaries, then, when none are
// found and none were configured, asks opts.FetchBinaries for some.
func findOrFetchBinDir(ctx context.Context, opts Options) (string, error) {
	finder := binFinder{lookPath: exec.LookPath, pgConfig: runPgConfig, libRoot: "/usr/lib/postgresql"}
	if opts.finder != nil {
		finder = *opts.finder
	}
	dir, err := finder.find(ctx, opts.BinDir)
	if err == nil || opts.BinDir != "" || opts.FetchBinaries == nil || !errors.Is(err, ErrNoBinaries) {
		return dir, err
	}
	dir, fetchErr := opts.FetchBinaries(ctx)
	if fetchErr != nil {
		return "", fmt.Errorf("%w: none installed, and fetching them failed: %w; or %s", ErrNoBinaries, fetchErr, installHint)
	}
	if missing := missingBinaries(dir); len(missing) > 0 {
		return "", fmt.Errorf("%w: fetched bin dir %s lacks %s", ErrNoBinaries, dir, strings.Join(missing, ", "))
	}
	return dir, nil
}

// binFinder holds the places FindBinDir looks in, so that tests can replace them.
type binFinder struct {
	lookPath func(name string) (string, error)
	pgConfig func(ctx context.Context) (string, error)
	libRoot  string
}

func (f binFinder) find(ctx context.Context, configured string) (string, error) {
	if configured != "" {
		dir, err := filepath.Abs(configured)
		if err != nil {
			return "", fmt.Errorf("PostgreSQL bin dir %q: %w", configured, err)
		}
		if missing := missingBinaries(dir); len(missing) > 0 {
			return "", fmt.Errorf("%w: configured bin dir %s lacks %s; %s",
				ErrNoBinaries, dir, strings.Join(missing, ", "), installHint)
		}
		return dir, nil
	}

	var tried []string
	if dir, ok := f.fromPath(); ok {
		return dir, nil
	}
	tried = append(tried, "PATH")

	if dir, err := f.pgConfig(ctx); err == nil && dir != "" {
		if len(missingBinaries(dir)) == 0 {
			return dir, nil
		}
		tried = append(tried, "pg_config --bindir ("+dir+" lacks the server programs)")
	} else {
		tried = append(tried, "pg_config --bindir")
	}

	if dir, ok := highestVersionDir(f.libRoot); ok {
		return dir, nil
	}
	tried = append(tried, filepath.Join(f.libRoot, "*", "bin"))

	return "", fmt.Errorf("%w (looked in %s); %s", ErrNoBinaries, strings.Join(tried, ", "), installHint)
}

// fromPath finds the programs on PATH. Distributions often put symlinks on
// PATH (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb), so the
// directory is taken from the resolved initdb, and it must hold all three.
func (f binFinder) fromPath() (string, bool) {
	p, err := f.lookPath("initdb")
	if err != nil {
		return "", false
	}
	if resolved, err := filepath.EvalSymlinks(p); err == nil {
		p = resolved
	}
	dir, err := filepath.Abs(filepath.Dir(p))
	if err != nil || len(missingBinaries(dir)) > 0 {
		return "", false
	}
	return dir, true
}

// runPgConfig asks pg_config where the binaries are. pg_config often comes
// from the client package alone, so its answer is checked by the caller.
func runPgConfig(ctx context.Context) (string, error) {
	path, err := exec.LookPath("pg_config")
	if err != nil {
		return "", fmt.Errorf("find pg_config: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--bindir").Output()
	if err != nil {
		return "", fmt.Errorf("run pg_config --bindir: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// highestVersionDir picks root/<major>/bin with the highest numeric major
// version that holds all the programs ("16" beats "9.6", which a string
// comparison would get wrong).
func highestVersionDir(root string) (string, bool) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", false
	}
	type candidate struct {
		version []int
		dir     string
	}
	var found []candidate
	for _, e := range entries {
		version, ok := parseVersion(e.Name())
		if !ok {
			continue
		}
		dir := filepath.Join(root, e.Name(), "bin")
		if len(missingBinaries(dir)) == 0 {
			found = append(found, candidate{version, dir})
		}
	}
	if len(found) == 0 {
		return "", false
	}
	sort.Slice(found, func(i, j int) bool { return versionLess(found[j].version, found[i].version) })
	return found[0].dir, true
}

// parseVersion reads "15" or "9.6" as numbers.
func parseVersion(name string) ([]int, bool) {
	parts := strings.Split(name, ".")
	version := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		version = append(version, n)
	}
	return version, true
}

func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// missingBinaries lists the required programs that dir lacks as executable files.
func missingBinaries(dir string) []string {
	var missing []string
	for _, name := range requiredBinaries() {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}
