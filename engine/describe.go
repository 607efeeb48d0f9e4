package engine

// Description is what an event did, as language-neutral data: a phrase id
// and the typed arguments that phrase speaks of. The engines stay free of
// words; a reader's language (i18n/tell) turns a Description into a
// sentence, and a history's news (play) reads News and Scoring to sort
// events without knowing their family.
//
// Only the fields a phrase uses are set; the others are zero.
type Description struct {
	// Phrase is the stable id of what happened: one of the Phrase
	// constants below.
	Phrase string
	// Seat is the seat the event is about; -1 for the table.
	Seat int
	// Round is the round that began (PhraseRoundStarted).
	Round int
	// Colour is the colour taken, tiled or placed ("red"), or the round's
	// wild colour (PhraseRoundStarted of Summer Pavilion).
	Colour string
	// Count is how many tiles of Colour were taken or moved.
	Count int
	// Source is the factory the tiles came from, 0-based, or FromCentre.
	Source int
	// Marker is whether the start marker (Summer Pavilion: the start
	// token) went with the tiles.
	Marker bool
	// Line is the pattern line (1-based) the tiles went to or came from.
	Line int
	// To are the places a move's tiles went to, in the family's order.
	To []Part
	// Wilds are the wild tiles taken beside Colour.
	Wilds int
	// Points is the score change of the event: negative for a loss.
	Points int
	// Penalty is the printed penalty of a floor line (a loss, negative);
	// Points is less when the score could not go below zero.
	Penalty int
	// Floor is how many tiles the floor line held.
	Floor int
	// Star and Space are where a tile was placed (Summer Pavilion);
	// StarColour is the star's colour, "" for the centre star.
	Star       int
	Space      int
	StarColour string
	CentreStar bool
	// Features are the features a placement completed.
	Features []Feature
	// Tiles are tiles by colour (kept, earned), in the family's colour
	// order; Discarded counts the tiles thrown away.
	Tiles     []Tiles
	Discarded int

	// News says how a history of news tells the event.
	News News
	// Scoring is whether the event is an item of its seat's account of the
	// round (Rules' Item words).
	Scoring bool
}

// FromCentre is the Source of tiles taken from the centre of the table.
const FromCentre = -1

// Part is where some of a move's tiles went: Place is PlaceLine,
// PlaceFloor or PlaceLid.
type Part struct {
	Place string
	Count int
}

// The places a move's tiles go to.
const (
	PlaceLine  = "line"
	PlaceFloor = "floor"
	PlaceLid   = "lid"
)

// Feature is a completed feature of a board, e.g. {"star", 3}.
type Feature struct {
	Kind string
	Star int
}

// Tiles is a count of tiles of one colour.
type Tiles struct {
	Colour string
	Count  int
}

// News is how a history of news tells an event.
type News uint8

const (
	// NewsNone: the event is not told on its own (a deal, a score the
	// round's account tells, the start or end of the game).
	NewsNone News = iota
	// NewsMove: told as a move of its seat.
	NewsMove
	// NewsTable: told as news of the table, by no seat.
	NewsTable
	// NewsPlay: told as a move of its seat that the round's account tells
	// again once the round is scored.
	NewsPlay
)

// The phrases of every family. Those shared by both families have no
// family prefix.
const (
	PhraseStarted      = "started"
	PhraseRoundStarted = "round_started"
	PhraseResigned     = "resigned"
	PhraseGameEnded    = "game_ended"

	PhraseAzulTaken       = "azul.tiles_taken"
	PhraseAzulWallTiled   = "azul.wall_tiled"
	PhraseAzulLineToFloor = "azul.line_to_floor"
	PhraseAzulFloorScored = "azul.floor_scored"

	PhrasePavilionTaken          = "pavilion.tiles_taken"
	PhrasePavilionPlacingBegan   = "pavilion.placing_began"
	PhrasePavilionPlaced         = "pavilion.tile_placed"
	PhrasePavilionBonus          = "pavilion.bonus_taken"
	PhrasePavilionSupplyRefilled = "pavilion.supply_refilled"
	PhrasePavilionPassed         = "pavilion.passed"
)

// Phrases lists every phrase id, for a language to check that it words
// them all.
func Phrases() []string {
	return []string{
		PhraseStarted, PhraseRoundStarted, PhraseResigned, PhraseGameEnded,
		PhraseAzulTaken, PhraseAzulWallTiled, PhraseAzulLineToFloor, PhraseAzulFloorScored,
		PhrasePavilionTaken, PhrasePavilionPlacingBegan, PhrasePavilionPlaced, PhrasePavilionBonus,
		PhrasePavilionSupplyRefilled, PhrasePavilionPassed,
	}
}
