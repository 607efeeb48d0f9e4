package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
)

// inboundPath is the route of mails from a provider's inbound webhook;
// its bodies are raw messages, larger than the JSON bodies of the API.
const inboundPath = "/v1/inbound/email"

// errNoNotifier is served by the mail and webhook routes of a server
// built without a notifier.
func errNoNotifier() error {
	return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "no_notifier")
}

// webhookRequest is the body of POST /v1/webhooks.
type webhookRequest struct {
	URL string `json:"url"`
	// Secret signs the deliveries; empty draws one.
	Secret string `json:"secret"`
}

func (s *Server) createWebhook(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if s.notifier == nil {
		return errNoNotifier()
	}
	var req webhookRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	w, err := s.notifier.RegisterWebhook(c.Request().Context(), p.ID, strings.TrimSpace(req.URL), req.Secret)
	if err != nil {
		return webhookProblem(err)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, w)
}

func (s *Server) listWebhooks(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if s.notifier == nil {
		return errNoNotifier()
	}
	list, err := s.notifier.Webhooks(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"webhooks": list})
}

func (s *Server) deleteWebhook(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if s.notifier == nil {
		return errNoNotifier()
	}
	if err := s.notifier.DeleteWebhook(c.Request().Context(), p.ID, strings.ToLower(c.Param("id"))); err != nil {
		return webhookProblem(err)
	}
	return c.NoContent(http.StatusNoContent)
}

func webhookProblem(err error) error {
	switch {
	case errors.Is(err, notify.ErrPrivateWebhook):
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "webhook_private")
	case errors.Is(err, notify.ErrInvalid):
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "webhook_invalid")
	case errors.Is(err, notify.ErrNotFound):
		return newProblem(http.StatusNotFound, ProblemNotFound, "webhook_not_found")
	}
	return err
}

// inboundSecretOK compares the request's bearer token or basic-auth
// password with the configured secret in constant time.
func (s *Server) inboundSecretOK(r *http.Request) bool {
	given, ok := bearerToken(r)
	if !ok {
		_, given, ok = r.BasicAuth()
	}
	if !ok || s.inboundSecret == "" {
		return false
	}
	// Hashing first makes the comparison independent of the lengths.
	a, b := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(s.inboundSecret))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// inboundEmail takes a raw RFC 5322 message from a mail provider.
func (s *Server) inboundEmail(c echo.Context) error {
	if s.inbound == nil || s.inboundSecret == "" {
		return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "inbound_off")
	}
	if err := s.checkTokenAttempt(c); err != nil {
		return err
	}
	if !s.inboundSecretOK(c.Request()) {
		s.countFailedToken(c)
		c.Response().Header().Set("WWW-Authenticate", `Basic realm="azuld inbound mail"`)
		return newProblem(http.StatusUnauthorized, ProblemUnauthenticated, "inbound_secret")
	}
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "inbound_empty")
	}
	env := mailin.Envelope{From: firstNonEmpty(c.QueryParam("from"), c.Request().Header.Get("X-Envelope-From"))}
	for _, v := range append(c.QueryParams()["to"], c.Request().Header.Values("X-Envelope-To")...) {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" && len(env.Rcpts) < 10 {
				env.Rcpts = append(env.Rcpts, a)
			}
		}
	}
	outcome, err := s.inbound.Receive(c.Request().Context(), env, raw)
	if errors.Is(err, mailin.ErrMalformed) {
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "inbound_unreadable")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"outcome": string(outcome)})
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// stopPage is the confirmation page of the stop link: a GET only shows
// it (mail scanners follow links), the button POSTs.
var stopPage = template.Must(template.New("stop").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>azuld: stop mails</title></head>
<body>{{if .Stopped}}<p>Done: no more mails about game {{.GameID}} for seat {{.Seat}}.</p>{{else}}
<p>Stop the mails about game {{.GameID}} for seat {{.Seat}}? Answers to your own replies still arrive.</p>
<form method="post"><button type="submit" name="List-Unsubscribe" value="One-Click">Stop these mails</button></form>{{end}}
</body></html>
`))

// stopResponse is the JSON of the stop route.
type stopResponse struct {
	GameID  string `json:"game_id"`
	Seat    int    `json:"seat"`
	Stopped bool   `json:"stopped"`
}

// mailStop shows (GET) or performs (POST, RFC 8058 one-click) the stop of
// a seat's mails for a game, named by the token of a mail.
func (s *Server) mailStop(c echo.Context) error {
	if s.notifier == nil {
		return errNoNotifier()
	}
	token := c.QueryParam("token")
	if len(token) > 128 {
		return newProblem(http.StatusNotFound, ProblemNotFound, "stop_link")
	}
	if err := s.checkTokenAttempt(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	var (
		gameID string
		seat   int
		ok     bool
		err    error
	)
	stop := c.Request().Method == http.MethodPost
	if stop {
		gameID, seat, ok, err = s.notifier.StopByToken(ctx, token)
	} else {
		gameID, seat, ok, err = s.notifier.LookupToken(ctx, token)
	}
	if err != nil {
		return err
	}
	if !ok {
		s.countFailedToken(c)
		return newProblem(http.StatusNotFound, ProblemNotFound, "stop_link")
	}
	res := stopResponse{GameID: gameID, Seat: seat, Stopped: stop}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/html") {
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		c.Response().WriteHeader(http.StatusOK)
		return stopPage.Execute(c.Response(), res)
	}
	return c.JSON(http.StatusOK, res)
}
