package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// registerRequest is the body of POST /v1/players.
type registerRequest struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	// Language and TimeZone are the player's choices; a missing language
	// is the best match of Accept-Language, a missing zone UTC.
	Language *string `json:"language"`
	TimeZone *string `json:"time_zone"`
}

// preferences are the language and zone a registration asks for, each
// checked when given (an empty one is refused, not defaulted).
func (s *Server) preferences(c echo.Context, req registerRequest) (play.Preferences, error) {
	var pref play.Preferences
	if req.Language != nil {
		if err := play.ValidLanguage(*req.Language); err != nil {
			return pref, err
		}
		pref.Language = *req.Language
	} else if lang := s.cat.Match(c.Request().Header.Get("Accept-Language")); i18n.Supported(lang) {
		pref.Language = lang
	}
	if req.TimeZone != nil {
		if err := play.ValidTimeZone(*req.TimeZone); err != nil {
			return pref, err
		}
		pref.TimeZone = *req.TimeZone
	}
	return pref, nil
}

// registerResponse shows the token once: only its hash is stored.
type registerResponse struct {
	play.Player
	Token string `json:"token"`
}

func (s *Server) registerPlayer(c echo.Context) error {
	var req registerRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	// Bad choices are refused before they count against the limit.
	pref, err := s.preferences(c, req)
	if err != nil {
		return err
	}
	if err := s.limits.Allow(c.Request().Context(), limits.Registrations, clientKey(c)); err != nil {
		return err
	}
	p, token, err := s.svc.RegisterPlayer(c.Request().Context(), req.Name, req.Email, pref)
	if err != nil {
		return err
	}
	if p.Email != "" && s.notifier != nil && s.notifier.VerifyAddresses() {
		// The one mail an unverified address gets before its owner
		// answers it. The player exists either way: a failure to queue
		// is logged, and POST /v1/me/verification asks again.
		if err := s.web.SendVerification(c, p); err != nil {
			s.log.WarnContext(c.Request().Context(), "verification mail not queued", "player", p.ID, "err", err)
		}
	}
	p = s.shownPlayer(p)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, registerResponse{Player: p, Token: token})
}
