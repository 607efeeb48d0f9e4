// Package pgfetch downloads PostgreSQL server binaries once into a cache,
// for a machine that has no PostgreSQL installed.
//
// The binaries are zonky's embedded-postgres-binaries archives, served from
// a Maven repository (Maven Central by default): a .jar (a zip) per
// platform and version that holds one .txz (an xz-compressed tar) with
// bin/, lib/ and share/ at its top. The repository layout, the .sha256
// check and the cache file name are the ones of
// github.com/fergusstrange/embedded-postgres, so that a mirror made for it
// serves azuld too. That library is not used itself: it exports no way to
// fetch without running initdb and pg_ctl as the calling user on a fixed
// port, while azuld runs the server its own way (pgcluster: a free port, a
// generated password, another OS user when started as root).
package pgfetch

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ulikunitz/xz"
)

// DefaultRepositoryURL is Maven Central, where zonky publishes the archives.
const DefaultRepositoryURL = "https://repo1.maven.org/maven2"

// DefaultVersion is the PostgreSQL release fetched when none is configured.
const DefaultVersion = "16.9.0"

// maxArchiveSize bounds a download (zonky's archives are 10 to 30 MB), so a
// wrong URL serving something endless cannot fill the memory.
const maxArchiveSize = 512 << 20

// ErrCorrupt is wrapped by the errors about an archive that cannot be read
// as zonky's layout (a broken zip, xz or tar, or no server programs in it).
var ErrCorrupt = errors.New("corrupt PostgreSQL archive")

// Options configure Fetch.
type Options struct {
	// RepositoryURL is the Maven repository's root; empty means DefaultRepositoryURL.
	RepositoryURL string
	// CacheDir holds the downloaded archives and their extracted binaries (required).
	CacheDir string
	// Version is zonky's version of the archive, e.g. "16.9.0"; empty means DefaultVersion.
	Version string
	// Logger is told when a download starts and ends; nil logs nothing.
	Logger *slog.Logger
	// Client makes the requests; nil means a client with a 10-minute timeout.
	Client *http.Client
	// Platform overrides the detected "<os>-<arch>" of the archive, e.g. "linux-amd64".
	Platform string
}

// Fetch returns a directory holding bin/initdb, bin/pg_ctl and bin/postgres
// (the bin dir itself), downloading and extracting the archive into the
// cache when it is not there yet. A corrupt archive is removed from the
// cache, so that the next call downloads it again.
func Fetch(ctx context.Context, opts Options) (string, error) {
	if opts.CacheDir == "" {
		return "", errors.New("fetch PostgreSQL binaries: no cache dir given")
	}
	cacheDir, err := filepath.Abs(opts.CacheDir)
	if err != nil {
		return "", fmt.Errorf("fetch PostgreSQL binaries: cache dir %q: %w", opts.CacheDir, err)
	}
	repo := strings.TrimRight(opts.RepositoryURL, "/")
	if repo == "" {
		repo = DefaultRepositoryURL
	}
	version := opts.Version
	if version == "" {
		version = DefaultVersion
	}
	platform := opts.Platform
	if platform == "" {
		platform = Platform()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}

	name := "embedded-postgres-binaries-" + platform + "-" + version
	archive := filepath.Join(cacheDir, name+".txz")
	extracted := filepath.Join(cacheDir, name)
	binDir := filepath.Join(extracted, "bin")
	if missing := missingPrograms(binDir); len(missing) == 0 {
		log.Info("using the cached PostgreSQL binaries", "bin_dir", binDir)
		return binDir, nil
	}
	// Parents are traversable: the server may run as another OS user.
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("fetch PostgreSQL binaries: create cache dir: %w", err)
	}
	if _, err := os.Stat(archive); err != nil {
		jarURL := fmt.Sprintf("%s/io/zonky/test/postgres/embedded-postgres-binaries-%s/%s/%s.jar", repo, platform, version, name)
		log.Info("no PostgreSQL binaries on this machine: downloading them once", "url", jarURL, "cache", cacheDir)
		start := time.Now()
		n, err := download(ctx, client, jarURL, archive)
		if err != nil {
			return "", fmt.Errorf("fetch PostgreSQL binaries: %w", err)
		}
		log.Info("PostgreSQL binaries downloaded", "bytes", n, "duration", time.Since(start).Round(time.Millisecond).String())
	}
	log.Info("unpacking the PostgreSQL binaries", "archive", archive)
	if err := extract(archive, extracted); err != nil {
		// A broken archive stays broken: drop it so that the next start fetches it anew.
		_ = os.Remove(archive)
		return "", fmt.Errorf("fetch PostgreSQL binaries: %w (removed from the cache; the next start downloads it again)", err)
	}
	log.Info("PostgreSQL binaries ready", "bin_dir", binDir)
	return binDir, nil
}

// Platform is zonky's name of this machine's platform: linux-amd64,
// linux-arm64v8, darwin-arm64v8, linux-amd64-alpine, ...
func Platform() string {
	arch := runtime.GOARCH
	switch arch {
	case "arm64":
		arch = "arm64v8"
	case "arm":
		arch = "arm32v7"
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/etc/alpine-release"); err == nil {
			arch += "-alpine" // musl: the glibc builds do not run there
		}
	}
	return runtime.GOOS + "-" + arch
}

// download fetches the jar and its .sha256 (when the repository has one),
// checks the sum, and stores the .txz inside it at dest. It returns the
// jar's size.
func download(ctx context.Context, client *http.Client, jarURL, dest string) (int, error) {
	jar, status, err := get(ctx, client, jarURL)
	if err != nil {
		return 0, err
	}
	if status == http.StatusNotFound {
		return 0, fmt.Errorf("%s: not found (404): no archive of this version for this platform in the repository", jarURL)
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("%s: HTTP status %d", jarURL, status)
	}
	sum, status, err := get(ctx, client, jarURL+".sha256")
	if err != nil {
		return 0, err
	}
	if status == http.StatusOK {
		want := strings.ToLower(strings.TrimSpace(strings.Fields(string(sum) + " x")[0]))
		got := sha256.Sum256(jar)
		if want != hex.EncodeToString(got[:]) {
			return 0, fmt.Errorf("%s: SHA-256 %x does not match the repository's %s: download damaged or tampered with", jarURL, got, want)
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return 0, fmt.Errorf("%w: %s is not a jar (zip): %v", ErrCorrupt, jarURL, err)
	}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !strings.HasSuffix(f.Name, ".txz") {
			continue
		}
		if err := writeEntry(f, dest); err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrCorrupt, jarURL, err)
		}
		return len(jar), nil
	}
	return 0, fmt.Errorf("%w: %s holds no .txz archive", ErrCorrupt, jarURL)
}

// get reads a whole response body, up to maxArchiveSize.
func get(ctx context.Context, client *http.Client, url string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("repository URL: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxArchiveSize+1))
	if err != nil {
		return nil, 0, fmt.Errorf("download %s: %w", url, err)
	}
	if len(body) > maxArchiveSize {
		return nil, 0, fmt.Errorf("download %s: larger than %d MB", url, maxArchiveSize>>20)
	}
	return body, resp.StatusCode, nil
}

// writeEntry copies a zip entry to dest through a temporary file, so that
// another process never sees half an archive.
func writeEntry(f *zip.File, dest string) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// extract unpacks the .txz into a temporary folder next to dest, checks
// that it holds the server programs, then renames it to dest.
func extract(archive, dest string) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("open %s: %w", archive, err)
	}
	defer f.Close()
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".extract-*")
	if err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	defer os.RemoveAll(tmp) // empty once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	xr, err := xz.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%w %s: not xz: %v", ErrCorrupt, archive, err)
	}
	if err := untar(tar.NewReader(xr), tmp); err != nil {
		return fmt.Errorf("%w %s: %v", ErrCorrupt, archive, err)
	}
	if missing := missingPrograms(filepath.Join(tmp, "bin")); len(missing) > 0 {
		return fmt.Errorf("%w %s: no bin/%s in it", ErrCorrupt, archive, strings.Join(missing, ", bin/"))
	}
	// Another process that fetched at the same time may have finished
	// first: its copy is as good as this one, and may be in use.
	if len(missingPrograms(filepath.Join(dest, "bin"))) == 0 {
		return nil
	}
	_ = os.RemoveAll(dest) // a partial copy from an interrupted run
	if err := os.Rename(tmp, dest); err != nil {
		if len(missingPrograms(filepath.Join(dest, "bin"))) == 0 {
			return nil
		}
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	return nil
}

// untar writes regular files, folders and symbolic links under root,
// refusing names and link targets that would leave it.
func untar(tr *tar.Reader, root string) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." {
			continue
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q leaves the archive's folder", h.Name)
		}
		target := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			// Readable by all: the server may run as another OS user than the one fetching.
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return fmt.Errorf("entry %q: %w", h.Name, err)
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(h.Linkname) || !filepath.IsLocal(filepath.Join(path.Dir(name), h.Linkname)) {
				return fmt.Errorf("link %q -> %q leaves the archive's folder", h.Name, h.Linkname)
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		default:
			// Hard links, devices and the like have no place in a binary archive.
		}
	}
}

// missingPrograms lists which of the server programs dir lacks.
func missingPrograms(dir string) []string {
	var missing []string
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}
