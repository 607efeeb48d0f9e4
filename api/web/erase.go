package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// deleteAccountForm asks a signed-in player to confirm the deletion of
// their account by typing their name.
func (w *Web) deleteAccountForm(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	p := w.newPage(c, s, "account-delete", "web.delete.title")
	p.Form = newForm()
	return w.render(c, http.StatusOK, "account-delete", p)
}

// deleteAccount deletes the signed-in player's account (see
// play.Service.DeleteAccount) once the form's CSRF token and the typed
// name check out, and signs the browser out. A wrong name changes nothing.
func (w *Web) deleteAccount(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	if s == nil {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	f := newForm()
	typed := c.FormValue("name")
	f.Values["name"] = truncate(typed, 64)
	if strings.TrimSpace(typed) != s.Player.Name {
		p := w.newPage(c, s, "account-delete", "web.delete.title")
		f.Errors["name"] = p.L.T("web.delete.error.name")
		p.Form = f
		return w.render(c, http.StatusBadRequest, "account-delete", p)
	}
	if err := w.svc.DeleteAccount(c.Request().Context(), s.Player.ID); err != nil {
		return w.fail(c, s, err)
	}
	// The session's row went with the account; the cookie goes now.
	if err := w.endSession(c, s); err != nil {
		return w.fail(c, nil, err)
	}
	// Still in the deleted account's language, but signed out.
	p := w.newPage(c, s, "account-delete", "web.delete.done_title")
	p.Session, p.CSRF = nil, w.anonCSRF(c)
	p.Notice = p.L.T("web.delete.done")
	return w.render(c, http.StatusOK, "account-delete", p)
}
