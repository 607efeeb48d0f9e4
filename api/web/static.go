package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// staticFS holds the browser's files: the JavaScript modules, the style
// sheet and images (see docs/web.md for who writes them).
//
//go:embed all:static
var staticFS embed.FS

// staticFile is one embedded file, ready to serve.
type staticFile struct {
	body        []byte
	contentType string
	etag        string
	// version is the short content hash put in ?v= links.
	version string
}

// staticFiles are the embedded files by path under static/.
type staticFiles struct {
	files map[string]staticFile
}

// Cache lifetimes: a URL with the file's content hash (?v=) never
// changes; a bare URL (a module imported by another) is revalidated each
// time, which costs a 304, so a new release never mixes old and new
// modules.
const (
	cacheVersioned = "public, max-age=31536000, immutable"
	cacheBare      = "public, no-cache"
)

func newStaticFiles() (*staticFiles, error) {
	sf := &staticFiles{files: map[string]staticFile{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		if d.IsDir() || strings.HasPrefix(path.Base(name), ".") {
			return nil
		}
		body, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sf.add(name, body, contentType(name))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: read the static files: %w", err)
	}
	return sf, nil
}

// add serves a file made when the server starts under static/name.
func (sf *staticFiles) add(name string, body []byte, contentType string) {
	sum := sha256.Sum256(body)
	version := hex.EncodeToString(sum[:8])
	sf.files[name] = staticFile{body: body, contentType: contentType, etag: `"` + version + `"`, version: version}
}

// messagesFile is the static file of a language's messages for the
// scripts: one file a browser caches for good under its versioned URL,
// rather than the same words inlined in every table page.
func messagesFile(lang string) string { return "messages/" + lang + ".json" }

// contentType is a file's media type by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".txt", ".md", "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// url is the versioned URL of a static file; a file that does not exist
// gets its bare URL (it will 404 where a test or a browser sees it).
func (sf *staticFiles) url(name string) string {
	if f, ok := sf.files[name]; ok {
		return "/static/" + name + "?v=" + f.version
	}
	return "/static/" + name
}

// serveStatic serves GET /static/{path}.
func (w *Web) serveStatic(c echo.Context) error {
	name := c.Param("*")
	f, ok := w.static.files[name]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no static file "+truncate(name, 64))
	}
	h := c.Response().Header()
	h.Set("ETag", f.etag)
	if c.QueryParam("v") == f.version {
		h.Set(echo.HeaderCacheControl, cacheVersioned)
	} else {
		h.Set(echo.HeaderCacheControl, cacheBare)
	}
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagMatches(inm, f.etag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, f.contentType, f.body)
}

// etagMatches reads an If-None-Match list (weak comparison, RFC 9110).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
