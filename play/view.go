package play

import (
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/projections"
)

// GameView is the state JSON of docs/architecture.md §5.4: the engine's view of the
// table plus the server's fields.
type GameView struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
	Status  string `json:"status"`
	engine.View
	Seats          []Seat `json:"seats"`
	SeedCommitment string `json:"seed_commitment"`
	Seed           string `json:"seed,omitempty"`
	Settings
	TimeControl *TimeControl `json:"time_control,omitempty"`
	Deadline    *time.Time   `json:"deadline,omitempty"`
	// PendingTakeback is the open take-back request, awaiting consents.
	PendingTakeback *Takeback `json:"pending_takeback,omitempty"`
	CreatedBy       string    `json:"created_by"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	// RematchOf and Rematch link a game and its rematch (see Game).
	RematchOf string   `json:"rematch_of,omitempty"`
	Rematch   string   `json:"rematch,omitempty"`
	Declined  []string `json:"declined,omitempty"`
	// Imported: the game came from an exported log; it is never rated.
	Imported bool `json:"imported,omitempty"`
}

// View is the game as the API shows it.
func (g *Game) View() GameView {
	v := GameView{
		ID: g.ID, Version: g.Version, Status: g.Status,
		Seats: g.Seats, SeedCommitment: g.SeedCommitment, Seed: g.Seed, Settings: g.Settings,
		TimeControl: g.TimeControl, Deadline: g.Deadline,
		CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt,
		PendingTakeback: g.PendingTakeback(),
		RematchOf:       g.RematchOf, Rematch: g.Rematch, Declined: g.Declined,
		Imported: g.Imported,
	}
	if g.State == nil {
		v.View = engine.View{Ruleset: g.Config.Ruleset, Options: g.Config.Options, ToAct: []int{}}
		return v
	}
	v.View = g.State.View()
	for i := range v.Players {
		if seat := v.Players[i].Seat; seat >= 0 && seat < len(g.Seats) {
			v.Players[i].Name = g.Seats[seat].displayName()
		}
	}
	return v
}

// ToAct are the seats that must act now (none while open or finished).
func (g *Game) ToAct() []int {
	if g.State == nil {
		return nil
	}
	return g.State.ToAct()
}

// SeatsOf lists the seats a player holds.
func (g *Game) SeatsOf(playerID string) []int {
	var seats []int
	for i, s := range g.Seats {
		if playerID != "" && s.PlayerID == playerID {
			seats = append(seats, i)
		}
	}
	return seats
}

// LegalMoves lists a seat's legal moves now.
func (g *Game) LegalMoves(seat int) []engine.Move {
	if g.State == nil || seat < 0 || seat >= len(g.Seats) {
		return nil
	}
	return g.State.LegalMoves(seat)
}

// Text renders the table as text; before the game starts, a line on
// what it waits for: the free seats, or (every seat taken) its next event.
func (g *Game) Text() string {
	if g.State == nil {
		var free []string
		for _, s := range g.Seats {
			if s.PlayerID == "" && s.Bot == "" {
				free = append(free, strconv.Itoa(s.Seat))
			}
		}
		switch len(free) {
		case 0:
			return "The game has not started yet: every seat is taken, and it starts with its next event.\n"
		case 1:
			return "The game has not started: seat " + free[0] + " is still free.\n"
		}
		return "The game has not started: seats " + strings.Join(free, ", ") + " are still free.\n"
	}
	return g.State.Text()
}

// StoredRow is the game's row as the read models hold it, nil before
// the game is created (version 0).
func (g *Game) StoredRow() *projections.GameRow {
	if g.Version == 0 {
		return nil
	}
	row := g.Row()
	return &row
}

// Row is the game as the read models store it.
func (g *Game) Row() projections.GameRow {
	row := projections.GameRow{
		ID: g.ID, Ruleset: g.Config.Ruleset, Options: g.Config.Options,
		Status: g.Status, Version: g.Version, ToAct: g.ToAct(),
		CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt, LastMoveAt: g.UpdatedAt,
		Deadline: g.Deadline, Unrated: !g.Rated, Private: g.Private(),
	}
	if row.ToAct == nil {
		row.ToAct = []int{}
	}
	for i, s := range g.Seats {
		// No name: the read models resolve names when they are read.
		row.Seats = append(row.Seats, projections.SeatRow{Seat: i, PlayerID: s.PlayerID, Bot: s.Bot, Budget: s.Budget, Reserved: s.Reserved})
	}
	if g.State != nil {
		row.Final = g.State.Final()
	}
	return row
}
