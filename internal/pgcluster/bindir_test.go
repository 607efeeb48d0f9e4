package pgcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinDir makes dir hold executable files with the given names.
func fakeBinDir(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// emptyFinder finds nothing anywhere, so each test enables one place.
func emptyFinder(t *testing.T) binFinder {
	return binFinder{
		lookPath: func(string) (string, error) { return "", errors.New("not on PATH") },
		pgConfig: func(context.Context) (string, error) { return "", errors.New("no pg_config") },
		libRoot:  filepath.Join(t.TempDir(), "no-such-root"),
	}
}

func TestFindBinDirConfigured(t *testing.T) {
	t.Parallel()
	good := fakeBinDir(t, filepath.Join(t.TempDir(), "good"), "initdb", "pg_ctl", "postgres")
	got, err := emptyFinder(t).find(context.Background(), good)
	if err != nil || got != good {
		t.Fatalf("configured complete dir: got %q, %v; want %q", got, err, good)
	}

	// A configured dir lacking a program is an error even though another
	// installation could be found: the setting is wrong and must be fixed.
	partial := fakeBinDir(t, filepath.Join(t.TempDir(), "partial"), "initdb", "postgres")
	f := emptyFinder(t)
	f.lookPath = func(string) (string, error) { return filepath.Join(good, "initdb"), nil }
	_, err = f.find(context.Background(), partial)
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("configured partial dir: got %v, want ErrNoBinaries", err)
	}
	if !strings.Contains(err.Error(), "pg_ctl") {
		t.Errorf("error should name the missing program pg_ctl: %v", err)
	}
}

func TestFindBinDirFromPathResolvesSymlinks(t *testing.T) {
	t.Parallel()
	real := fakeBinDir(t, filepath.Join(t.TempDir(), "pg", "bin"), "initdb", "pg_ctl", "postgres")
	// Like /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb: only
	// initdb is on PATH, the other programs are next to its target.
	onPath := filepath.Join(t.TempDir(), "usr-local-bin")
	if err := os.MkdirAll(onPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "initdb"), filepath.Join(onPath, "initdb")); err != nil {
		t.Fatal(err)
	}
	f := emptyFinder(t)
	f.lookPath = func(name string) (string, error) {
		if name != "initdb" {
			return "", errors.New("not on PATH")
		}
		return filepath.Join(onPath, "initdb"), nil
	}
	got, err := f.find(context.Background(), "")
	if err != nil || got != real {
		t.Fatalf("got %q, %v; want the symlink's target dir %q", got, err, real)
	}
}

func TestFindBinDirFromPgConfig(t *testing.T) {
	t.Parallel()
	dir := fakeBinDir(t, filepath.Join(t.TempDir(), "bin"), "initdb", "pg_ctl", "postgres")
	f := emptyFinder(t)
	f.pgConfig = func(context.Context) (string, error) { return dir, nil }
	got, err := f.find(context.Background(), "")
	if err != nil || got != dir {
		t.Fatalf("got %q, %v; want %q", got, err, dir)
	}

	// pg_config of a client-only installation points at a dir without the server.
	clientOnly := fakeBinDir(t, filepath.Join(t.TempDir(), "client"), "psql")
	f.pgConfig = func(context.Context) (string, error) { return clientOnly, nil }
	if got, err := f.find(context.Background(), ""); !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("client-only pg_config: got %q, %v; want ErrNoBinaries", got, err)
	}
}

func TestFindBinDirHighestVersion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	all := []string{"initdb", "pg_ctl", "postgres"}
	fakeBinDir(t, filepath.Join(root, "9.6", "bin"), all...)
	fakeBinDir(t, filepath.Join(root, "10", "bin"), all...)
	want := fakeBinDir(t, filepath.Join(root, "15", "bin"), all...)
	fakeBinDir(t, filepath.Join(root, "16", "bin"), "pg_ctl") // incomplete: skipped
	fakeBinDir(t, filepath.Join(root, "common", "bin"), all...)
	f := emptyFinder(t)
	f.libRoot = root
	got, err := f.find(context.Background(), "")
	if err != nil || got != want {
		t.Fatalf("got %q, %v; want %q (15 is the highest complete version; 9.6 sorts last numerically)", got, err, want)
	}
}

func TestFindBinDirNothingSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	_, err := emptyFinder(t).find(context.Background(), "")
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("got %v, want ErrNoBinaries", err)
	}
	for _, want := range []string{"apt-get install postgresql", "AZUL_PG_BIN", "AZUL_DATABASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error should mention %q: %v", want, err)
		}
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "x", "15beta", "1..2", "-1"} {
		if v, ok := parseVersion(name); ok {
			t.Errorf("parseVersion(%q) = %v, want not a version", name, v)
		}
	}
	a, _ := parseVersion("9.6")
	b, _ := parseVersion("15")
	if !versionLess(a, b) || versionLess(b, a) {
		t.Errorf("9.6 must sort before 15")
	}
}
