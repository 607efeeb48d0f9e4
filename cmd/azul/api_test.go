package main

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/apiclient"
)

// TestStrictAnswers: an answer with a member the API description does
// not name, or a status it does not document, is a mismatch in strict
// mode (the mode of every other test here, against the real server).
func TestStrictAnswers(t *testing.T) {
	t.Parallel()
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/v1/me/turns"}}
	answer := func(status int, body string) *apiclient.MyTurnsResponse {
		res := &apiclient.MyTurnsResponse{
			Body:         []byte(body),
			HTTPResponse: &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Request: req},
		}
		if status == http.StatusOK {
			res.JSON200 = &apiclient.Turns{}
		}
		return res
	}
	a := &app{strict: true}
	documented := `{"turns":[{"game_id":"01a20fd0-aae6-7a54-81e6-61fbf355501b","ruleset":"azul-mini","seats":[0],"version":4,"since":"2026-11-24T23:07:44Z"}]}`
	if err := a.result(answer(http.StatusOK, documented), nil, http.StatusOK); err != nil {
		t.Errorf("documented answer: %v", err)
	}
	var mm *mismatchError
	undocumented := strings.Replace(documented, `"seats":[0]`, `"seat":0`, 1)
	if err := a.result(answer(http.StatusOK, undocumented), nil, http.StatusOK); !errors.As(err, &mm) {
		t.Errorf("a member the description lacks: %v", err)
	}
	if err := a.result(answer(http.StatusTeapot, `{"type":"x","title":"y","status":418}`), nil, http.StatusOK); !errors.As(err, &mm) {
		t.Errorf("an undocumented status: %v", err)
	}
	// Not strict (a user's azul): the extra member is no error.
	a.strict = false
	if err := a.result(answer(http.StatusOK, undocumented), nil, http.StatusOK); err != nil {
		t.Errorf("not strict: %v", err)
	}
}
