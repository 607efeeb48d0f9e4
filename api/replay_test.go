package api

import "github.com/azuld/azuld/events"

// eventsPage is a page of the audit trail as the tests read it (the
// descriptions and undone marks are read where tested).
type eventsPage struct {
	GameID string          `json:"game_id"`
	Events []events.Record `json:"events"`
	Next   string          `json:"next,omitempty"`
}
